#include "validate/nccl/nccl_backend.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace topoplan {
namespace {

void cuda_check(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(rc));
}

void nccl_check(ncclResult_t rc, const char* what) {
  if (rc != ncclSuccess) throw std::runtime_error(std::string(what) + ": " + ncclGetErrorString(rc));
}

class NcclGroupComm : public ValidateComm {
 public:
  NcclGroupComm(ncclComm_t nccl, std::unique_ptr<ValidateComm> mpi) : nccl_(nccl), mpi_(std::move(mpi)) {}
  ~NcclGroupComm() override { ncclCommDestroy(nccl_); }
  int rank() const override { return mpi_->rank(); }
  int size() const override { return mpi_->size(); }
  ncclComm_t nccl() const { return nccl_; }
  const ValidateComm& mpi() const { return *mpi_; }

 private:
  ncclComm_t nccl_;
  std::unique_ptr<ValidateComm> mpi_;
};

class DeviceBuffer : public ValidateBuffer {
 public:
  explicit DeviceBuffer(size_t n) : n_(n) {
    cuda_check(cudaMalloc(&data_, std::max<size_t>(1, n) * sizeof(float)), "cudaMalloc");
  }
  ~DeviceBuffer() override { cudaFree(data_); }
  void upload(const std::vector<float>& host) override {
    cuda_check(cudaMemcpy(data_, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  std::vector<float> download() const override {
    std::vector<float> host(n_);
    cuda_check(cudaMemcpy(host.data(), data_, n_ * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return host;
  }
  size_t count() const override { return n_; }
  float* data() const { return data_; }

 private:
  float* data_ = nullptr;
  size_t n_;
};

}  // namespace

struct NcclBackend::State {
  ncclComm_t world = nullptr;
  cudaStream_t stream = nullptr;
  int gpu = 0;
};

Result<void> NcclBackend::gpu_usable(int gpu) {
  int devices = 0;
  if (cudaError_t rc = cudaGetDeviceCount(&devices); rc != cudaSuccess || devices == 0)
    return Error{"--backend nccl: no CUDA device is visible on this host (" +
                 std::string(rc != cudaSuccess ? cudaGetErrorString(rc) : "0 devices") + ")"};
  if (gpu < 0 || gpu >= devices)
    return Error{"--backend nccl: the plan puts this rank on GPU " + std::to_string(gpu) + ", this host shows " +
                 std::to_string(devices) + " (CUDA_VISIBLE_DEVICES narrows what is visible)"};
  return {};
}

std::unique_ptr<NcclBackend> NcclBackend::make(int gpu) {
  auto state = std::make_unique<State>();
  state->gpu = gpu;
  cuda_check(cudaSetDevice(gpu), "cudaSetDevice");
  cuda_check(cudaStreamCreate(&state->stream), "cudaStreamCreate");
  ncclUniqueId id;
  int rank = 0, world = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  if (rank == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  nccl_check(ncclCommInitRank(&state->world, world, id, rank), "ncclCommInitRank");
  return std::unique_ptr<NcclBackend>(new NcclBackend(std::move(state)));
}

NcclBackend::NcclBackend(std::unique_ptr<State> state) : state_(std::move(state)) {}

NcclBackend::~NcclBackend() {
  if (state_->world) ncclCommDestroy(state_->world);
  if (state_->stream) cudaStreamDestroy(state_->stream);
}

std::unique_ptr<ValidateComm> NcclBackend::split(int color, int key) {
  std::unique_ptr<ValidateComm> mpi = MpiBackend::split(color, key);
  ncclComm_t comm = nullptr;
  // Every rank of the world calls the split; those without a group get no communicator.
  nccl_check(ncclCommSplit(state_->world, color < 0 ? NCCL_SPLIT_NOCOLOR : color, key, &comm, nullptr),
             "ncclCommSplit");
  if (!mpi) return nullptr;
  return std::make_unique<NcclGroupComm>(comm, std::move(mpi));
}

std::unique_ptr<ValidateBuffer> NcclBackend::buffer(size_t count) { return std::make_unique<DeviceBuffer>(count); }

void NcclBackend::run(const ValidateComm& comm, CollectiveOp op, const ValidateBuffer& send, ValidateBuffer& recv,
                      size_t count, int peer_to, int peer_from, bool in_place) {
  const ncclComm_t c = static_cast<const NcclGroupComm&>(comm).nccl();
  float* out = static_cast<DeviceBuffer&>(recv).data();
  // In place as nccl-tests runs it: all_gather's input and reduce_scatter's output at the rank's slot.
  const size_t slot = static_cast<size_t>(comm.rank()) * count;
  const float* in = !in_place                        ? static_cast<const DeviceBuffer&>(send).data()
                    : op == CollectiveOp::all_gather ? out + slot
                                                     : out;
  if (in_place && op == CollectiveOp::reduce_scatter) out += slot;
  cudaStream_t s = state_->stream;
  switch (op) {
    case CollectiveOp::all_reduce:
      nccl_check(ncclAllReduce(in, out, count, ncclFloat, ncclSum, c, s), "ncclAllReduce");
      break;
    case CollectiveOp::all_gather:
      nccl_check(ncclAllGather(in, out, count, ncclFloat, c, s), "ncclAllGather");
      break;
    case CollectiveOp::reduce_scatter:
      nccl_check(ncclReduceScatter(in, out, count, ncclFloat, ncclSum, c, s), "ncclReduceScatter");
      break;
    case CollectiveOp::alltoall:
      nccl_check(ncclAlltoAll(in, out, count, ncclFloat, c, s), "ncclAlltoAll");
      break;
    case CollectiveOp::sendrecv:
      nccl_check(ncclGroupStart(), "ncclGroupStart");
      if (peer_to >= 0) nccl_check(ncclSend(in, count, ncclFloat, peer_to, c, s), "ncclSend");
      if (peer_from >= 0) nccl_check(ncclRecv(out, count, ncclFloat, peer_from, c, s), "ncclRecv");
      nccl_check(ncclGroupEnd(), "ncclGroupEnd");
      break;
    default:
      throw std::runtime_error("topoplan-validate does not run " + std::string(to_string(op)));
  }
}

std::string NcclBackend::device_bus_id() const {
  cudaDeviceProp prop{};
  cuda_check(cudaGetDeviceProperties(&prop, state_->gpu), "cudaGetDeviceProperties");
  char id[32];
  std::snprintf(id, sizeof id, "%04x:%02x:%02x", prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
  return id;
}

std::string NcclBackend::device_name() const {
  cudaDeviceProp prop{};
  cuda_check(cudaGetDeviceProperties(&prop, state_->gpu), "cudaGetDeviceProperties");
  return prop.name;
}

void NcclBackend::sync() { cuda_check(cudaStreamSynchronize(state_->stream), "cudaStreamSynchronize"); }

void NcclBackend::comm_max(const ValidateComm& comm, std::vector<double>& values) {
  MpiBackend::comm_max(static_cast<const NcclGroupComm&>(comm).mpi(), values);
}

}  // namespace topoplan

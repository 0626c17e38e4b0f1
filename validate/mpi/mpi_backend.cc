#include "validate/mpi/mpi_backend.h"

#include <algorithm>
#include <climits>
#include <stdexcept>

namespace topoplan {
namespace {

class MpiComm : public ValidateComm {
 public:
  explicit MpiComm(MPI_Comm c) : c_(c) {}
  ~MpiComm() override { MPI_Comm_free(&c_); }
  int rank() const override {
    int r = 0;
    MPI_Comm_rank(c_, &r);
    return r;
  }
  int size() const override {
    int n = 0;
    MPI_Comm_size(c_, &n);
    return n;
  }
  MPI_Comm get() const { return c_; }

 private:
  MPI_Comm c_;
};

class HostBuffer : public ValidateBuffer {
 public:
  explicit HostBuffer(size_t n) : data(n) {}
  void upload(const std::vector<float>& host) override { data = host; }
  std::vector<float> download() const override { return data; }
  size_t count() const override { return data.size(); }
  std::vector<float> data;
};

// MPI counts are ints; the harness's sizes stay far below, but say so rather than wrap.
int as_count(size_t n) {
  if (n > static_cast<size_t>(INT_MAX))
    throw std::runtime_error("a collective of " + std::to_string(n) + " elements is over MPI's int count");
  return static_cast<int>(n);
}

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw std::runtime_error(std::string(what) + ": " + std::string(text, static_cast<size_t>(len)));
}

}  // namespace

int MpiBackend::world_rank() const {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int MpiBackend::world_size() const {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

std::string MpiBackend::host_name() const {
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  MPI_Get_processor_name(name, &len);
  return {name, static_cast<size_t>(len)};
}

std::unique_ptr<ValidateComm> MpiBackend::split(int color, int key) {
  MPI_Comm c = MPI_COMM_NULL;
  check(MPI_Comm_split(MPI_COMM_WORLD, color < 0 ? MPI_UNDEFINED : color, key, &c), "MPI_Comm_split");
  if (c == MPI_COMM_NULL) return nullptr;
  return std::make_unique<MpiComm>(c);
}

std::unique_ptr<ValidateBuffer> MpiBackend::buffer(size_t count) { return std::make_unique<HostBuffer>(count); }

void MpiBackend::run(const ValidateComm& comm, CollectiveOp op, const ValidateBuffer& send, ValidateBuffer& recv,
                     size_t count, int peer_to, int peer_from, bool in_place) {
  const MPI_Comm c = static_cast<const MpiComm&>(comm).get();
  const float* in =
      in_place ? static_cast<const float*>(MPI_IN_PLACE) : static_cast<const HostBuffer&>(send).data.data();
  float* out = static_cast<HostBuffer&>(recv).data.data();
  const int n = as_count(count);
  const int to = peer_to >= 0 ? peer_to : MPI_PROC_NULL, from = peer_from >= 0 ? peer_from : MPI_PROC_NULL;
  switch (op) {
    case CollectiveOp::all_reduce:
      check(MPI_Allreduce(in, out, n, MPI_FLOAT, MPI_SUM, c), "MPI_Allreduce");
      return;
    case CollectiveOp::all_gather:
      check(MPI_Allgather(in, n, MPI_FLOAT, out, n, MPI_FLOAT, c), "MPI_Allgather");
      return;
    case CollectiveOp::reduce_scatter:
      check(MPI_Reduce_scatter_block(in, out, n, MPI_FLOAT, MPI_SUM, c), "MPI_Reduce_scatter_block");
      // MPI leaves an in-place result at the start; NCCL (and the harness) at the rank's slot.
      if (in_place) std::copy_backward(out, out + count, out + (static_cast<size_t>(comm.rank()) + 1) * count);
      return;
    case CollectiveOp::alltoall:
      check(MPI_Alltoall(in, n, MPI_FLOAT, out, n, MPI_FLOAT, c), "MPI_Alltoall");
      return;
    case CollectiveOp::sendrecv:
      if (in_place) {
        check(MPI_Sendrecv_replace(out, n, MPI_FLOAT, to, 0, from, 0, c, MPI_STATUS_IGNORE), "MPI_Sendrecv_replace");
        return;
      }
      check(MPI_Sendrecv(in, peer_to >= 0 ? n : 0, MPI_FLOAT, to, 0, out, peer_from >= 0 ? n : 0, MPI_FLOAT, from, 0, c,
                         MPI_STATUS_IGNORE),
            "MPI_Sendrecv");
      return;
    default:
      throw std::runtime_error("topoplan-validate does not run " + std::string(to_string(op)));
  }
}

void MpiBackend::world_max(std::vector<double>& v) {
  check(MPI_Allreduce(MPI_IN_PLACE, v.data(), as_count(v.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD),
        "MPI_Allreduce");
}

void MpiBackend::comm_max(const ValidateComm& comm, std::vector<double>& v) {
  check(MPI_Allreduce(MPI_IN_PLACE, v.data(), as_count(v.size()), MPI_DOUBLE, MPI_MAX,
                      static_cast<const MpiComm&>(comm).get()),
        "MPI_Allreduce");
}

void MpiBackend::world_barrier() { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

std::vector<std::string> MpiBackend::world_gather(const std::string& mine) {
  const int n = world_size();
  const int length = as_count(mine.size());
  std::vector<int> lengths(static_cast<size_t>(n)), offsets(static_cast<size_t>(n));
  check(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather");
  size_t total = 0;
  for (size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = as_count(total);
    total += static_cast<size_t>(lengths[r]);
  }
  std::string all(total, '\0');
  check(MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
                       MPI_COMM_WORLD),
        "MPI_Allgatherv");
  std::vector<std::string> out;
  for (size_t r = 0; r < lengths.size(); ++r)
    out.push_back(all.substr(static_cast<size_t>(offsets[r]), static_cast<size_t>(lengths[r])));
  return out;
}

double MpiBackend::now_s() const { return MPI_Wtime(); }

}  // namespace topoplan

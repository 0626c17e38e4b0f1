// The NCCL backend of topoplan-validate: device buffers on the GPU the plan gives each rank and
// NCCL's collectives, so the check exercises the same library, algorithms and links as training.
// MPI launches the ranks and carries NCCL's unique id; each NCCL communicator has an MPI twin of the
// same ranks for the harness's small reductions.
#pragma once

#include <memory>

#include "validate/mpi/mpi_backend.h"

namespace topoplan {

class NcclBackend : public MpiBackend {
 public:
  // Whether this rank can use local GPU `gpu`: errors say what is missing (no CUDA device, a GPU
  // index past those visible). Every rank checks before any joins NCCL, which waits for all.
  static Result<void> gpu_usable(int gpu);
  // Binds this rank to the GPU and joins the world's NCCL communicator (collective).
  static std::unique_ptr<NcclBackend> make(int gpu);
  ~NcclBackend() override;

  std::string name() const override { return "nccl"; }
  std::unique_ptr<ValidateComm> split(int color, int key) override;
  std::unique_ptr<ValidateBuffer> buffer(size_t count) override;
  void run(const ValidateComm& comm, CollectiveOp op, const ValidateBuffer& send, ValidateBuffer& recv, size_t count,
           int peer_to, int peer_from, bool in_place) override;
  void sync() override;
  std::string device_bus_id() const override;
  std::string device_name() const override;
  void comm_max(const ValidateComm& comm, std::vector<double>& values) override;

  struct State;

 private:
  explicit NcclBackend(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace topoplan

// The MPI backend of topoplan-validate: host buffers and MPI's own collectives, so a plan can be
// checked on any machines (CPUs included) with the launcher the job would use.
#pragma once

#include <mpi.h>

#include "validate/backend.h"

namespace topoplan {

class MpiBackend : public ValidateBackend {
 public:
  std::string name() const override { return "mpi"; }
  int world_rank() const override;
  int world_size() const override;
  std::string host_name() const override;
  std::unique_ptr<ValidateComm> split(int color, int key) override;
  std::unique_ptr<ValidateBuffer> buffer(size_t count) override;
  void run(const ValidateComm& comm, CollectiveOp op, const ValidateBuffer& send, ValidateBuffer& recv, size_t count,
           int peer_to, int peer_from, bool in_place) override;
  void world_max(std::vector<double>& values) override;
  void comm_max(const ValidateComm& comm, std::vector<double>& values) override;
  void world_barrier() override;
  std::vector<std::string> world_gather(const std::string& mine) override;
  double now_s() const override;
};

}  // namespace topoplan

// The layout as torchrun starts it, for every format that launches with torchrun (torchrun.txt and
// the Kubernetes manifests). Internal to planner/emit/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "planner/emit/placement.h"

namespace topoplan {

// torchrun (torch/distributed/run.py) with its static rendezvous: --node-rank is the agent's group
// rank, and the agent gives its workers the global ranks that follow those of every lower node
// (elastic agent _assign_worker_ranks), the same --nproc-per-node on every node; local rank k runs
// on CUDA device k, the k-th entry of CUDA_VISIBLE_DEVICES.
struct TorchrunNodes {
  int nproc = 0;                     // --nproc-per-node
  std::vector<int> hosts;            // by node rank
  std::vector<std::string> devices;  // by node rank: CUDA_VISIBLE_DEVICES ("3,2,1,0")
};

// An error, naming the host or rank, when a host does not hold one contiguous block of ranks or
// hosts hold different numbers; `format` begins it ("torchrun cannot express this layout: ...").
Result<TorchrunNodes> torchrun_nodes(const EmitInput& in, const RankPlacement& placement, std::string_view format);

}  // namespace topoplan

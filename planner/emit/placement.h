// Where each rank runs, in the terms launchers use (host, CUDA ordinal), checked once so every
// format can trust it. Internal to planner/emit/.
#pragma once

#include <string_view>
#include <vector>

#include "planner/emit/emit.h"

namespace topoplan {

struct RankPlace {
  VertexId gpu = kNoVertex;
  int host = -1;          // index into Cluster::hosts()
  int cuda_ordinal = -1;  // the GPU's local_index on its host
};

struct RankPlacement {
  std::vector<RankPlace> ranks;  // by rank
  std::vector<int> hosts;        // hosts that run ranks, in the order of their lowest rank
  std::vector<int> ranks_on;     // by host index (all hosts of the cluster): how many ranks it runs
};

// An error when the layout's size differs from the job's, or a rank sits on something that is not
// a GPU of a host, or two ranks share a GPU.
Result<RankPlacement> placement_of(const EmitInput& in);

// Whether the k-th rank (in rank order) on every host runs on that host's GPU k: what a launcher
// gives when each rank takes the GPU of its local rank and nothing else says otherwise.
bool placement_local_order_is_identity(const RankPlacement& placement);

// A device's name within its host: "nic0" for "h001/nic0", "mlx5_0" for "h001/mlx5_0".
std::string_view local_name(const Device& device);

}  // namespace topoplan

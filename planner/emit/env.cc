#include <string>

#include "planner/emit/formats.h"
#include "planner/emit/preamble.h"

namespace topoplan {

// One line per rank: its host, then the variables that pin it to the planned GPU and NIC. The
// cluster model has no HCA field, so the NIC's name within its host stands for it: presets call
// NICs nic0..nicN, a cluster file can name them after their HCA ("h001/mlx5_0").
// NCCL_IB_HCA: a leading '=' makes the names exact rather than prefixes (src/transport/net_ib.cc,
// searchExact), so "mlx5_1" does not also select mlx5_10.
EmitResult emit_env(const EmitInput& in, const RankPlacement& placement) {
  const Cluster& c = in.cluster;
  std::string text = emit_preamble("env", in, placement);
  text += "# RANK HOST VARIABLES...: each rank sees only its planned GPU (as CUDA device 0) and uses one NIC\n";
  for (size_t r = 0; r < placement.ranks.size(); ++r) {
    const RankPlace& place = placement.ranks[r];
    text += std::to_string(r) + " " + c.hosts()[static_cast<size_t>(place.host)].name +
            " CUDA_VISIBLE_DEVICES=" + std::to_string(place.cuda_ordinal);
    VertexId nic = in.router.nic_for(place.gpu);
    if (nic != kNoVertex) text += " NCCL_IB_HCA==" + std::string(local_name(c.device(nic)));
    text += "\n";
  }
  return std::vector<EmittedFile>{{"ranks.env", std::move(text)}};
}

}  // namespace topoplan

#include <string>

#include "planner/emit/formats.h"
#include "planner/emit/preamble.h"
#include "planner/emit/torchrun_nodes.h"

namespace topoplan {

// One torchrun line per host, to run on that host with the training script appended.
EmitResult emit_torchrun(const EmitInput& in, const RankPlacement& placement) {
  Result<TorchrunNodes> nodes = torchrun_nodes(in, placement, "torchrun");
  RETURN_IF_ERROR(nodes);
  const std::vector<Host>& hosts = in.cluster.hosts();
  auto host_name = [&](int h) { return hosts[static_cast<size_t>(h)].name; };
  std::string text = emit_preamble("torchrun", in, placement);
  text += "# HOST: the command for that host (rendezvous on the host of rank 0); append the training script\n";
  const std::string master = host_name(nodes->hosts[0]);
  const size_t nnodes = nodes->hosts.size();
  for (size_t node = 0; node < nnodes; ++node)
    text += host_name(nodes->hosts[node]) + ": CUDA_VISIBLE_DEVICES=" + nodes->devices[node] +
            " torchrun --nnodes=" + std::to_string(nnodes) + " --node-rank=" + std::to_string(node) +
            " --nproc-per-node=" + std::to_string(nodes->nproc) + " --master-addr=" + master + "\n";
  return std::vector<EmittedFile>{{"torchrun.txt", std::move(text)}};
}

}  // namespace topoplan

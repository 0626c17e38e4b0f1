#include "planner/emit/preamble.h"

namespace topoplan {

std::string emit_preamble(std::string_view format, const EmitInput& in, const RankPlacement& placement) {
  const Parallelism& p = in.job.parallel;
  auto n = [](int v) { return std::to_string(v); };
  std::string s = "# topoplan " + std::string(format) + ": job '" + in.job.name + "' on cluster '" + in.cluster.name +
                  "', " + n(in.layout.world_size()) + " ranks on " + n(static_cast<int>(placement.hosts.size())) +
                  " hosts, layout " + in.layout.source + "\n";
  s += "# order " + p.order + ": tp " + n(p.tp) + ", cp " + n(p.cp) + ", ep " + n(p.ep) + ", dp " + n(p.dp) +
       ", pp " + n(p.pp) + ", expert_tp " + n(p.expert_tp) + "\n";
  return s;
}

}  // namespace topoplan

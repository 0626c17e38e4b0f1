#include "planner/emit/preamble.h"
#include "base/words.h"

namespace topoplan {

std::string emit_preamble(std::string_view format, const EmitInput& in, const RankPlacement& placement) {
  const Parallelism& p = in.job.parallel;
  auto n = [](int v) { return std::to_string(v); };
  std::string s = "# topoplan " + std::string(format) + ": job '" + in.job.name + "' on cluster '" + in.cluster.name +
                  "', " + counted(in.layout.world_size(), "rank") + " on " +
                  counted(static_cast<int64_t>(placement.hosts.size()), "host") + ", layout " + in.layout.source + "\n";
  s += "# order " + p.order + ": tp " + n(p.tp) + ", cp " + n(p.cp) + ", ep " + n(p.ep) + ", dp " + n(p.dp) + ", pp " +
       n(p.pp) + ", expert_tp " + n(p.expert_tp) + "\n";
  return s;
}

}  // namespace topoplan

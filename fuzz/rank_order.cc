// Megatron order strings and parallel sizes: the first six bytes are tp, cp, pp, dp, ep and
// expert_tp (1 to 8; expert_tp 0 to 7), the rest the order; every group list of a valid grid
// covers each rank exactly once.
#include <algorithm>

#include "fuzz/fuzz.h"
#include "planner/rank_groups.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 6) return 0;
  ParallelSizes s{data[0] % 8 + 1, data[1] % 8 + 1, data[2] % 8 + 1, data[3] % 8 + 1, data[4] % 8 + 1, data[5] % 8};
  Result<RankGroups> g = RankGroups::make(s, fuzz::text(data + 6, size - 6));
  if (!fuzz::ok_or_explained(g)) return 0;
  for (const char* token : {"tp", "cp", "dp", "pp", "tp-pp", "dp-cp", "expert.ep", "expert.dp", "expert.tp-ep"}) {
    Result<GroupList> groups = g->groups(token);
    if (!groups) fuzz::violated("a group list of a valid grid failed:", groups.error());
    std::vector<int> ranks;
    for (const auto& group : *groups) ranks.insert(ranks.end(), group.begin(), group.end());
    std::sort(ranks.begin(), ranks.end());
    for (size_t i = 0; i < ranks.size(); ++i)
      if (ranks[i] != static_cast<int>(i) || ranks.size() != static_cast<size_t>(g->world_size()))
        fuzz::violated("a group list does not cover every rank once:", token);
  }
  return 0;
}

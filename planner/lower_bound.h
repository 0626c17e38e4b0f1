// A lower bound on a job's exposed communication on its hosts: every group at its best-case
// placement and alone, so no placement can do better. Each item's group is timed laid out p ranks
// per host on consecutive hosts of the allocation (in topology order), for every p that divides
// the GPUs per host, with no other group running; the exposure then follows from the fastest of
// those times. Loose where groups cannot all be at their best at once (TP fills a host, so DP
// cannot have it too), but it holds for every order string.
#pragma once

#include <string>
#include <vector>

#include "planner/score_state.h"

namespace topoplan {

struct LowerBound {
  double exposed_s = 0;
  std::string how;
  std::vector<double> item_us;  // per traffic item, its best-case time per call (0: no groups)
};

// `nodes`, when given, is a node cache for the same cluster and router to reuse and add to
// (ScoreState::nodes).
Result<LowerBound> lower_bound(const Cluster& cluster, const Router& router, const Job& job, const Layout& layout,
                               const ScoreOptions& options, CommNodeCache* nodes = nullptr);

}  // namespace topoplan

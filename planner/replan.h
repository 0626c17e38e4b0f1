// topoplan replan: a plan whose hosts failed, mended. Every rank on a healthy host keeps its GPU;
// each failed host's ranks go, in the same local GPU order, to the spare that gives the shortest
// step (the planner's objective: exposed communication, then bytes on the highest fabric level),
// every spare scored. Beside it: whether swapping the new host with one more host would shorten
// the step (scored, not applied), and a full re-plan on the new host set with how many ranks it
// would move. docs/planner.md, "After a failure".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "planner/plan.h"

namespace topoplan {

struct ReplanRequest {
  std::vector<int> failed;  // hosts of the plan that failed: their ranks must move
  // Hosts of the plan whose NIC cables run slower (replan --degraded, the cluster given with the new
  // rates): their ranks stay unless a spare shortens the step.
  std::vector<int> degraded;
  std::vector<int> spares;  // hosts offered in their place; empty: every host the plan does not use
  DownSet down;             // the plan's and the failed hosts; the Router must have been built with it
  ScoreOptions score;
  uint64_t seed = 1;  // the full re-plan's search
};

// One spare scored for one failed host's ranks.
struct SpareScore {
  int host = 0;
  double step_s = 0, exposed_s = 0;
  // Bytes per step between leaves and spines, and above the spines: the planner's tie-break.
  double spine_bytes = 0, core_bytes = 0;
};

struct HostReplacement {
  int host = 0;         // the failed or degraded host
  bool failed = true;   // false: degraded, and `spare` may be the host itself (its ranks stay)
  int spare = 0;        // where its ranks are now
  std::vector<SpareScore> scored;  // every usable spare (a degraded host itself too), the chosen first
};

// Swapping the ranks of two hosts of the mended plan, scored.
struct HostSwap {
  int a = 0, b = 0;
  int ranks = 0;  // that would move besides those already moved
  double step_s = 0, exposed_s = 0;
};

struct Replan {
  Plan plan;  // the mended one: the plan's job, the new layout and hosts, its score
  std::vector<HostReplacement> replacements;
  std::vector<int> moved_ranks;  // ranks whose GPU changed
  std::optional<HostSwap> swap;  // when one shortens the step by more than 0.1 %
  bool swap_searched = true;     // false past kSwapSearchHosts
  Plan full;                     // the planner on the new host set
  int full_moved = 0;            // ranks whose GPU the full re-plan changes
};

// Past this many hosts the swap search (one score per host) is left out.
inline constexpr size_t kSwapSearchHosts = 64;

// `before`: the plan's layout. Errors: no failed or degraded host of the plan, a failed host the
// plan does not use, a spare it uses or with no GPU up, too few spares.
Result<Replan> replan_job(const Cluster& cluster, const Router& router, const Job& job, const Layout& before,
                          const ReplanRequest& request);

}  // namespace topoplan

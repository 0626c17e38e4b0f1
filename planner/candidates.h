// A scheduler's candidate allocations ranked (topoplan advise --candidates): each planned as
// `plan --nodes` plans it on exactly those hosts (the same host choice, order strings and search,
// so its step is plan's), then ranked by step. The cluster, the router and the job are read once;
// candidates with one allocation pattern (planner/allocation_pattern.h) are planned once.
#pragma once

#include <string>
#include <vector>

#include "planner/candidate_file.h"
#include "planner/plan.h"
#include "planner/plan_running.h"

namespace topoplan {

struct CandidateResult {
  bool holds = false;  // false: the job cannot run there, `why` says why
  std::string why;
  double step_s = 0, exposed_s = 0;
  std::string order;                 // the plan's order string
  std::vector<int> hosts;            // the hosts the plan uses, in topology order
  std::array<int, kLevels> spans{};  // units those hosts span, per Level
  int violations = 0;                // rules (tp-in-domain, dp-only-across-sites) the plan could not keep
  int planned_as = -1;               // the candidate (index) whose plan this one shares; -1: its own
  int rank = 0;                      // 1 = shortest step; 0 when it does not hold the job
  // Beside running jobs: the GPUs' worth of their time it costs them, and step × (GPUs + weight ×
  // that), what the ranking orders by.
  double lost_gpus = 0, cost_gpu_s = 0;
};

struct CandidateRanking {
  std::vector<CandidateResult> results;         // in input order
  std::vector<size_t> ranked;                   // indices, shortest step first, then those that do not hold
  int planned = 0;                              // plans made; the rest shared a pattern's
  bool searched = true;                         // false: the planner's construction alone (--quick)
  const RunningPlanRequest* running = nullptr;  // ranked beside these, by cost
  // Which candidates shared a plan ("those that differ only in which hosts of a leaf group they
  // use"), or why each was planned on its own.
  std::string sharing;
};

// `request`: the planner's settings; its `free` is ignored (each candidate's hosts are offered).
// With request.search false (--quick) each candidate gets the planner's construction, the best
// order string placed in topology order, without the local search that follows it.
// With `running`, each is planned as plan --nodes --running plans it, on its own (their traffic
// tells hosts apart), and ranked by cost.
Result<CandidateRanking> candidates_rank(const Cluster& cluster, const Router& router, const Job& job,
                                         const std::vector<CandidateAllocation>& candidates, const PlanRequest& request,
                                         const RunningPlanRequest* running = nullptr);

}  // namespace topoplan

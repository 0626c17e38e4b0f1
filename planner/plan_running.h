// plan --running: a job planned beside the jobs already running. The running jobs' hosts are
// busy; the job is planned with their traffic as background (each link's others' max-min fair
// part, the new job counted as one more job with as many flows as the average one there) on the
// free hosts and, when that placement meets them and enough hosts are left, again on those away
// from the leaf groups whose uplinks the running jobs cross. On each host set the searched plan
// and the next best order strings placed in topology order are scored exactly beside them
// (arrival_compute): an order string that puts lighter traffic on the links they load may cost
// them less than the one best for the job alone. The placement with the least step × (its GPUs +
// weight × the GPUs' worth of time it costs the others) is the plan; a tie goes to the one that
// costs less under the other alignment, then to the one sharing fewer links. docs/planner.md,
// "Beside running jobs".
#pragma once

#include <string>
#include <vector>

#include "planner/arrival.h"
#include "planner/plan.h"

namespace topoplan {

struct RunningPlanRequest {
  const RunningJobs* running = nullptr;
  double weight = 1;  // of the others' lost GPU time against the job's own
  Alignment alignment = Alignment::average;
  // The running jobs' demands, states kept (job_demands with keep_states: each placement re-shares
  // them), when the caller plans many times; null: computed.
  const std::vector<JobDemand>* demands = nullptr;
};

// Order strings weighed per host set: the searched plan's and the next best constructions.
inline constexpr size_t kOrdersWeighed = 3;

// One placement considered.
struct RunningOption {
  std::string what;
  std::string order;
  bool searched = false;   // the plan's local search result, else the order placed in topology order
  std::vector<int> hosts;  // in rank order
  double step_s = 0;       // the job's own, beside the running jobs
  double lost_gpus = 0;    // what it costs them
  double cost = 0;         // step × (GPUs + weight × lost_gpus), GPU-seconds per step
  double cost_other = 0;   // the same under the other alignment: it breaks ties
  int shared_links = 0;    // link directions it shares with them: the last tie-break
};

struct RunningPlan {
  Plan plan;        // the chosen one, its score beside the running jobs
  Arrival arrival;  // of the chosen plan
  std::vector<RunningOption> options;
  size_t chosen = 0;
  RunningPlanRequest request;
  // The job's step it gave up for the others: chosen step - the least step of any option.
  double gave_up_s = 0;
};

// The background a job is planned on beside the running jobs (their demands alone, parallel to
// running.jobs; `options` gives the calibration): on each link they load, their part under
// `alignment` beside one more job with as many flows as their average there.
Result<Background> running_background(const Cluster& cluster, const Router& router, const RunningJobs& running,
                                      const std::vector<JobDemand>& demands, const ScoreOptions& options,
                                      Alignment alignment);

// `request.score` gives the calibration; its fabric and background are replaced. `router` must
// be built over `cluster` with request.down.
Result<RunningPlan> plan_beside_running(const Cluster& cluster, const Router& router, const Job& job,
                                        const PlanRequest& request, const RunningPlanRequest& running);

std::string running_plan_text(const RunningPlan& plan);
nlohmann::json running_plan_json(const Cluster& cluster, const RunningPlan& plan);

}  // namespace topoplan

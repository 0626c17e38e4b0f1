// A new job among the running ones (score --running): its step beside them, and what it adds to
// theirs. docs/model.md, "Jobs beside each other".
#pragma once

#include <array>
#include <string>
#include <vector>

#include "planner/contention.h"

namespace topoplan {

// One running job the new one shares a link with: its step beside the other running jobs, then
// with the new one too, per alignment.
struct ArrivalEffect {
  size_t job = 0;  // in the running jobs
  std::array<double, kAlignments> before_s{}, after_s{};
};

struct Arrival {
  // The running jobs, then the new one last; only it and the jobs it shares a link with are
  // scored beside the others (the rest keep their steps, as before it came).
  Contention after;
  std::vector<ArrivalEffect> effects;  // in the running jobs' order
  // What the new job costs the others, per alignment: Σ GPUs × added step / step over them, the
  // GPUs whose time it takes (the cluster's lost GPU-time per unit of time).
  std::array<double, kAlignments> lost_gpus{};
  const ContentionJob& job() const { return after.jobs.back(); }
};

// `job` must not run on a GPU a running job has. `options` as contention_compute reads them.
Result<Arrival> arrival_compute(const Cluster& cluster, const Router& router, const RunningJobs& running,
                                const RunningJob& job, const ScoreOptions& options);
// The same with the running jobs' demands known (parallel to running.jobs).
Result<Arrival> arrival_compute(const Cluster& cluster, const Router& router, const RunningJobs& running,
                                const std::vector<JobDemand>& demands, const RunningJob& job,
                                const ScoreOptions& options);

// "beside 3 running jobs (running.json): ..." with the new job's step alone and beside them
// under both alignments, then a line per running job it slows.
std::string arrival_text(const RunningJobs& running, const Arrival& arrival);
nlohmann::json arrival_json(const RunningJobs& running, const Arrival& arrival);

}  // namespace topoplan

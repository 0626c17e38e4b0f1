// Jobs beside each other on one fabric: who slows whom, and by how much. docs/model.md, "Jobs
// beside each other".
//
// Each job is scored alone on an idle fabric. On every link direction it loads it has a demand
// (the part of the link its traffic keeps busy) and flows (the most of its groups that cross the
// link in one collective). Beside the others a job gets its max-min fair share of each link it
// shares: every flow an equal part, a job's flows no more than its demand in all, the job's own
// flows whatever is left (they take what they can get, as the score assumes of a transfer). It is
// scored again with the others' part of each link as background (cost/link_share.h).
//
// Jobs do not step in lock-step, so there are two alignments of their phases:
//  - average: a job's demand is its step average (its traffic spread over its step, phases
//    unaligned with the others');
//  - worst: its busiest phase's (every job at its busiest phase at once).
// Demands are each job's alone: a slowed job spreads its bytes over a longer step and asks for
// less, so the slowdowns are at most one fixed-point iteration's, never below it.
#pragma once

#include <array>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "planner/running_jobs.h"
#include "planner/score.h"

namespace topoplan {

enum class Alignment : uint8_t { average, worst };
inline constexpr size_t kAlignments = 2;
std::string_view to_string(Alignment a);

// One job's part in another's slowdown.
struct ContentionCause {
  size_t job = 0;
  double share = 0;    // of the slowed job's added time
  double added_s = 0;  // per step of the slowed job
};

// A job's step beside the others, under one alignment.
struct JobBeside {
  double step_s = 0;
  double slowdown = 1;                  // step_s / step_alone_s
  std::vector<ContentionCause> causes;  // largest share first
};

struct ContentionJob {
  std::string name;
  int gpus = 0;
  double step_alone_s = 0;
  std::array<JobBeside, kAlignments> beside{};  // as alone where not re-scored
  // The others' part of each link the job shares, per alignment: what it was scored beside.
  std::array<Background, kAlignments> background;
  // Per alignment, each job's part in the busy time the job's links gain beside the others (by
  // job, in the order given): how its added time is split among them.
  std::array<std::vector<double>, kAlignments> parts;
};

// One job's traffic on one link direction, alone.
struct JobOnLink {
  size_t job = 0;
  int flows = 0;
  double utilization = 0;  // busy time over its step
  double peak = 0;         // in its busiest phase
  Phase peak_phase = Phase::forward;
  std::array<double, kPhases> phase_utilization{};  // busy time in each phase over the phase
};

struct ContendedLink {
  EdgeId edge = 0;
  std::vector<JobOnLink> jobs;       // busiest first
  double utilization = 0, peak = 0;  // summed over the jobs: above 1, they cannot all have it
  // Per phase, summed over the jobs: their load were they all in that phase at once (their
  // optimizer steps together, say).
  std::array<double, kPhases> phase_utilization{};
};

struct Contention {
  std::vector<ContentionJob> jobs;  // in the order given
  // Every loaded link direction: those two jobs or more load first, each part by summed peak.
  std::vector<ContendedLink> links;
  size_t meeting = 0;  // links loaded by two jobs or more
};

// What a job asks of a link under an alignment: its step average or its busiest phase's
// utilization, as a part of the link.
double demand_of(double utilization, double peak, Alignment a);

// Max-min fair parts of one link (capacity 1) for other jobs' flows, each job's flows taking no
// more than its demand in all, beside `self_flows` that take what they can get: each other's
// part, in the order given. What is left, 1 - their sum, is self's.
struct FlowDemand {
  int flows = 1;
  double demand = 0;  // part of the link, 0 to 1
};
std::vector<double> fair_parts(int self_flows, const std::vector<FlowDemand>& others);

// What one job puts on the links alone, on an idle fabric: its step, and per link direction it
// loads, its use and its flows.
struct JobDemand {
  double step_s = 0;
  std::vector<LinkUse> links;
  std::vector<int> flows;  // parallel to links
  // NCCL's choices from that score, which scoring it beside others reuses.
  std::shared_ptr<ScoreState::Memo> choices;
  // That score's state, when kept: scoring the job beside others re-shares it (steps_beside)
  // rather than routing it again, so it holds the last background asked for, which may since be
  // gone: set one before reading it.
  std::shared_ptr<ScoreState> state;
};
// `choices`: NCCL's choices to reuse and add to (another job's on this cluster), or null.
// `keep_state`: for a job scored beside others many times (a few MiB per state).
Result<JobDemand> job_demand(const Cluster& cluster, const Router& router, const RunningJob& job,
                             const ScoreOptions& options, std::shared_ptr<ScoreState::Memo> choices = nullptr,
                             bool keep_state = false);
Result<std::vector<JobDemand>> job_demands(const Cluster& cluster, const Router& router,
                                           const std::vector<RunningJob>& jobs, const ScoreOptions& options,
                                           bool keep_states = false);

// A job's step beside each background in turn (an empty one: its step alone, demand.step_s): one
// state (demand.state when kept) is re-shared for each (ScoreState::set_background), not routed
// again.
Result<std::vector<double>> steps_beside(const Cluster& cluster, const Router& router, const RunningJob& job,
                                         const JobDemand& demand, const ScoreOptions& options,
                                         const std::vector<const Background*>& backgrounds);
// Job `job`'s step beside the others under `a`: its slowdown, and its added time split among
// the others by their parts.
void contention_set_step(Contention& k, size_t job, Alignment a, double step_s);

// `options` gives the calibration and tuning; the jobs are the only traffic (an idle fabric
// otherwise), so its fabric mode and background are not read. `rescore`, when not empty, says
// which jobs to score beside the others; the rest count only for their traffic.
Result<Contention> contention_compute(const Cluster& cluster, const Router& router, const std::vector<RunningJob>& jobs,
                                      const ScoreOptions& options, std::span<const char> rescore = {});
// The same with each job's demand known (parallel to `jobs`).
Result<Contention> contention_compute(const Cluster& cluster, const Router& router, const std::vector<RunningJob>& jobs,
                                      const std::vector<const JobDemand*>& demands, const ScoreOptions& options,
                                      std::span<const char> rescore = {});

}  // namespace topoplan

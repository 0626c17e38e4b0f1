// What a job's own per-step traffic leaves free on the links between two sites, and what a bulk
// transfer (a data set, a checkpoint) over them costs beside the job: its time on the spare
// capacity, and the job's slowdown when the transfer takes a share of the links instead.
// docs/model.md, "Transfers beside a job".
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "planner/score.h"

namespace topoplan {

// One direction of the DCI between two sites, as the job loads it.
struct DciDirection {
  int from_site = -1, to_site = -1;
  std::vector<EdgeId> edges;  // the DCI links of this direction
  double capacity_GBps = 0;   // their line rates, summed
  double length_km = 0;       // the longest
  // What other traffic takes (--background), GB/s; the job and a transfer share the rest.
  double background_GBps = 0;
  double job_bytes_per_step = 0;
  double job_avg_GBps = 0;                       // over the step
  std::array<double, kPhases> job_phase_GBps{};  // over each phase's window (phase_durations_us)
  Phase peak_phase = Phase::forward;
  double job_peak_GBps = 0;
  double spare_avg_GBps() const;   // capacity less background less the job's average
  double spare_peak_GBps() const;  // the same during the job's busiest phase
};

// Both directions between `from` and `to` for a scored state; the first is from -> to. Errors name
// the site, or say that no DCI link joins them.
Result<std::array<DciDirection, 2>> dci_directions(const Cluster& cluster, const ScoreState& state,
                                                   const JobScore& score, const Background* background,
                                                   const std::string& from, const std::string& to);

// The background that leaves the job (1 - `share`) of the part of each of `edges` it had under
// `before` (its fabric mode and background): a transfer taking that share while the job sends.
Background background_with_transfer(const Background* background, const LinkShare& before,
                                    const std::vector<EdgeId>& edges, double share);

}  // namespace topoplan

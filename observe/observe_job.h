// `topoplan observe` as one call: a scored job's predicted link load beside the port counters'
// rates, each flagged link with the groups that load it (observe/link_compare.h, docs/observe.md).
// The CLI and bench/observe run this; files are read before it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "observe/link_compare.h"
#include "planner/job_inputs.h"

namespace topoplan {

// Said beside every report, text or JSON: the verdicts are correlations.
inline constexpr const char* kObserveCorrelation =
    "Counters beside a prediction show where the job's traffic and the fabric's disagree, not why: a flagged "
    "link is a place to look, and the groups named are the ones the model puts there.";

// A counter that names no link of the cluster: shown, never dropped.
struct UnmatchedCounter {
  std::string counter, where, reason;
};

// The counters that name a link of the cluster, and those that do not.
struct PortMatch {
  std::vector<PortRate> rates;
  std::vector<PortLink> ports;  // ports[i] is rates[i]'s link
  std::vector<UnmatchedCounter> unmatched;
};
// Every rate's link (port_find, through `mapping` when given); an error when none names one,
// since then there is nothing to observe.
Result<PortMatch> port_match(const Cluster& cluster, std::vector<PortRate> rates, const PortMapping* mapping);

struct ObserveJobOptions {
  std::optional<double> step_s;  // the job's measured step; the model's when absent
  double tolerance = 2;          // ObserveOptions::tolerance
};

struct ObserveJob {
  std::unique_ptr<ScoreState> state;  // the traffic items that `users` index
  JobScore score;
  ObserveOptions options;  // the step judged against, the model's step and the tolerance
  bool step_measured = false;
  size_t ports = 0;  // counters that name a link
  std::vector<LinkObservation> rows;
  std::vector<UnmatchedCounter> unmatched;
  std::unordered_map<EdgeId, std::vector<LinkUser>> users;  // the groups on each flagged link

  // The groups on `edge`, none unless it is flagged.
  const std::vector<LinkUser>& users_of(EdgeId edge) const;
  // Whether anything stands out: a flagged link or a counter that names none (exit 1).
  bool flagged() const;
};

// Scores `in`'s job and judges every matched port against it. Errors are the scorer's.
Result<ObserveJob> observe_job(const JobInputs& in, PortMatch match, const ObserveJobOptions& options);

// Each observed direction as observed / predicted per edge, for the drawing and the page; a busy
// link the job leaves idle as kDotBusyUnpredicted, 0 where no counter measured it.
std::vector<double> observed_ratios(const Cluster& cluster, const std::vector<LinkObservation>& rows);

}  // namespace topoplan

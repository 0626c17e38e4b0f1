// Port counters' rates beside the load a job's model predicts, one row per direction a counter
// measures, with the verdicts a network engineer would draw and the groups behind each link.
// The verdicts are correlations: a busy link beside a prediction says where to look, not why.
// docs/observe.md.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "observe/counters.h"
#include "observe/port_map.h"
#include "planner/link_use.h"

namespace topoplan {

enum class LinkVerdict : uint8_t {
  above_line_rate,        // faster than the link can carry: the window or the port mapping is wrong
  errors,                 // symbol or packet errors, link downs: a cable, an optic, a port
  busy_not_predicted,     // the job puts nothing here, yet it carries traffic
  above_prediction,       // more than tolerance x the job's: other traffic, or a routing or rail mismatch
  below_prediction,       // less than the job's / tolerance: its traffic took another path, or it ran slower
  congestion_foreseen,    // discards, waits or pauses where the model has the job's peak hot
  congestion_unforeseen,  // discards, waits or pauses where the model has the link cool
};
inline constexpr int kLinkVerdicts = 7;
std::string_view to_string(LinkVerdict v);        // "above_line_rate", ...
std::string_view verdict_meaning(LinkVerdict v);  // one line for people

struct ObserveOptions {
  double step_s = 0;            // the job's step: measured (--step-s) or the model's
  double model_step_s = 0;      // the model's, whose phase windows are scaled to step_s
  double tolerance = 2;         // observed / predicted beyond which (either way) a link is flagged
  double busy_fraction = 0.01;  // of the line rate: below it a link is idle, and small gaps are noise
  double hot_fraction = 0.5;    // of the line rate in the job's busiest phase: a link the model has hot
};

struct LinkObservation {
  EdgeId edge = 0;
  std::string port;      // "leaf3:5 (leaf3 -> spine1)"
  std::string counter;   // the counter's key, as its file names the port
  bool transmit = true;  // the counter's device sends on this direction (else it receives on it)
  std::string where;     // the readings used
  double window_s = 0;
  double capacity_GBps = 0;
  std::optional<double> observed_GBps;
  double predicted_GBps = 0;       // the job's bytes per step over its step
  double predicted_peak_GBps = 0;  // in its busiest phase
  Phase peak_phase = Phase::forward;
  // Counts in the window for this direction; absent where the source has no such counter.
  std::optional<double> discards, errors, wait, pause, ecn_marked;
  std::vector<std::string> counter_flags;  // from the counters: wrapped, reset, saturated ...
  std::vector<LinkVerdict> verdicts;
  std::optional<double> ratio() const;  // observed / predicted, when both are there and predicted > 0
};

// Both directions of every port in `rates` (ports[i] is rates[i]'s link), judged against `phase_bytes`
// (link_phase_bytes) with the model's phase windows `phase_us`.
std::vector<LinkObservation> observe_links(const Cluster& cluster, const std::vector<PortRate>& rates,
                                           const std::vector<PortLink>& ports,
                                           const std::unordered_map<EdgeId, PhaseBytes>& phase_bytes,
                                           const std::array<double, kPhases>& phase_us, const ObserveOptions& options);

}  // namespace topoplan

#include "observe/link_compare.h"

#include <algorithm>

namespace topoplan {

std::string_view to_string(LinkVerdict v) {
  switch (v) {
    case LinkVerdict::above_line_rate:
      return "above_line_rate";
    case LinkVerdict::errors:
      return "errors";
    case LinkVerdict::busy_not_predicted:
      return "busy_not_predicted";
    case LinkVerdict::above_prediction:
      return "above_prediction";
    case LinkVerdict::below_prediction:
      return "below_prediction";
    case LinkVerdict::congestion_foreseen:
      return "congestion_foreseen";
    case LinkVerdict::congestion_unforeseen:
      return "congestion_unforeseen";
  }
  return "?";
}

std::string_view verdict_meaning(LinkVerdict v) {
  switch (v) {
    case LinkVerdict::above_line_rate:
      return "faster than the link's line rate: the window or the port mapping is wrong";
    case LinkVerdict::errors:
      return "errors or link downs: check the cable, optic and port";
    case LinkVerdict::busy_not_predicted:
      return "busy where the job puts nothing: other traffic, or the job's traffic routed here";
    case LinkVerdict::above_prediction:
      return "above the job's predicted load: other traffic, or a routing or rail mismatch";
    case LinkVerdict::below_prediction:
      return "below the job's predicted load: its traffic took another path, or the job ran slower";
    case LinkVerdict::congestion_foreseen:
      return "discards, waits or pauses where the model has the job's load hot";
    case LinkVerdict::congestion_unforeseen:
      return "discards, waits or pauses where the model has the link cool: other traffic?";
  }
  return "?";
}

std::optional<double> LinkObservation::ratio() const {
  if (!observed_GBps || predicted_GBps <= 0) return std::nullopt;
  return *observed_GBps / predicted_GBps;
}

namespace {

std::optional<double> sum(std::initializer_list<std::optional<double>> parts) {
  std::optional<double> out;
  for (const std::optional<double>& p : parts)
    if (p) out = out.value_or(0) + *p;
  return out;
}

bool positive(const std::optional<double>& x) { return x && *x > 0; }

// What the counters of one port say about one direction of its link.
LinkObservation direction_of(const Cluster& c, const PortRate& r, const PortLink& port, bool transmit) {
  LinkObservation o;
  o.edge = transmit ? port.tx : Cluster::reverse(port.tx);
  o.port = port.name;
  o.counter = r.key;
  o.transmit = transmit;
  o.where = r.where;
  o.window_s = r.window_s;
  o.capacity_GBps = c.link(o.edge).bw_GBps;
  o.counter_flags = r.flags;
  const std::optional<double> Bps = transmit ? r.tx_Bps : r.rx_Bps;
  if (Bps) o.observed_GBps = *Bps / 1e9;
  // A port's transmit side waits for credit, is paused and marks; its receive side sees symbol
  // errors. Link downs break both.
  o.discards = transmit ? r.tx_discards : r.rx_discards;
  o.errors = transmit ? sum({r.tx_errors, r.link_downed}) : sum({r.rx_errors, r.symbol_errors, r.link_downed});
  if (transmit) {
    o.wait = r.xmit_wait;
    o.pause = r.pfc_pause;
    o.ecn_marked = r.ecn_marked;
  }
  return o;
}

void judge(LinkObservation& o, const ObserveOptions& opt) {
  const double floor_GBps = opt.busy_fraction * o.capacity_GBps;
  auto flag = [&o](LinkVerdict v) { o.verdicts.push_back(v); };
  if (o.observed_GBps && *o.observed_GBps > o.capacity_GBps * 1.02) flag(LinkVerdict::above_line_rate);
  if (positive(o.errors)) flag(LinkVerdict::errors);
  if (o.observed_GBps) {
    const double seen = *o.observed_GBps, predicted = o.predicted_GBps;
    if (predicted <= 0 && seen > floor_GBps) flag(LinkVerdict::busy_not_predicted);
    if (predicted > 0 && seen > opt.tolerance * predicted && seen - predicted > floor_GBps)
      flag(LinkVerdict::above_prediction);
    if (predicted > 0 && seen * opt.tolerance < predicted && predicted - seen > floor_GBps)
      flag(LinkVerdict::below_prediction);
  }
  if (positive(o.discards) || positive(o.wait) || positive(o.pause) || positive(o.ecn_marked))
    flag(o.predicted_peak_GBps >= opt.hot_fraction * o.capacity_GBps ? LinkVerdict::congestion_foreseen
                                                                     : LinkVerdict::congestion_unforeseen);
}

}  // namespace

std::vector<LinkObservation> observe_links(const Cluster& c, const std::vector<PortRate>& rates,
                                           const std::vector<PortLink>& ports,
                                           const std::unordered_map<EdgeId, PhaseBytes>& phase_bytes,
                                           const std::array<double, kPhases>& phase_us, const ObserveOptions& opt) {
  // The model's phases stretched (or shrunk) to the step the job really took.
  const double scale = opt.model_step_s > 0 && opt.step_s > 0 ? opt.step_s / opt.model_step_s : 1;
  std::array<double, kPhases> window_us = phase_us;
  for (double& w : window_us) w *= scale;
  std::vector<LinkObservation> out;
  for (size_t i = 0; i < rates.size() && i < ports.size(); ++i)
    for (bool transmit : {true, false}) {
      LinkObservation o = direction_of(c, rates[i], ports[i], transmit);
      if (auto it = phase_bytes.find(o.edge); it != phase_bytes.end()) {
        double bytes = 0;
        for (double b : it->second) bytes += b;
        o.predicted_GBps = opt.step_s > 0 ? bytes / opt.step_s / 1e9 : 0;
        const PhaseRates pr = phase_rates(it->second, window_us);
        o.predicted_peak_GBps = pr.peak_GBps;
        o.peak_phase = pr.peak_phase;
      }
      judge(o, opt);
      out.push_back(std::move(o));
    }
  return out;
}

}  // namespace topoplan

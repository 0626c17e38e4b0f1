#include "planner/dci_headroom.h"

#include <algorithm>

#include "planner/link_use.h"
#include "topology/summary.h"

namespace topoplan {

double DciDirection::spare_avg_GBps() const { return std::max(0.0, capacity_GBps - background_GBps - job_avg_GBps); }

double DciDirection::spare_peak_GBps() const { return std::max(0.0, capacity_GBps - background_GBps - job_peak_GBps); }

namespace {

// The background's utilization of `e` (later entries win), 0 where it says nothing.
double background_of(const Background* background, EdgeId e) {
  double u = 0;
  if (background)
    for (const auto& entry : background->utilization)
      if (entry.first == e) u = entry.second;
  return u;
}

}  // namespace

Result<std::array<DciDirection, 2>> dci_directions(const Cluster& c, const ScoreState& state, const JobScore& score,
                                                   const Background* background, const std::string& from,
                                                   const std::string& to) {
  // site_link checks the names and that a DCI link joins them.
  if (Result<SiteLink> link = site_link(c, from, to); !link) return Error{link.error()};
  const auto site = [&c](const std::string& name) {
    return static_cast<int>(std::find(c.sites().begin(), c.sites().end(), name) - c.sites().begin());
  };
  std::array<DciDirection, 2> out;
  out[0].from_site = out[1].to_site = site(from);
  out[0].to_site = out[1].from_site = site(to);
  std::vector<int> direction_of(c.num_edges(), -1);
  for (EdgeId e = 0; e < c.num_edges(); ++e) {
    const Link& l = c.link(e);
    if (l.kind != LinkKind::DCI) continue;
    for (int d = 0; d < 2; ++d) {
      DciDirection& dir = out[static_cast<size_t>(d)];
      if (c.device(c.source(e)).site != dir.from_site || c.device(c.target(e)).site != dir.to_site) continue;
      dir.edges.push_back(e);
      dir.capacity_GBps += l.bw_GBps;
      dir.length_km = std::max(dir.length_km, l.length_km);
      dir.background_GBps += l.bw_GBps * background_of(background, e);
      direction_of[e] = d;
    }
  }
  std::array<PhaseBytes, 2> phase_bytes{};
  for (const auto& [e, bytes] : link_phase_bytes(state))
    if (direction_of[e] >= 0)
      for (size_t p = 0; p < kPhases; ++p) phase_bytes[static_cast<size_t>(direction_of[e])][p] += bytes[p];
  const std::array<double, kPhases> phase_us = phase_durations_us(state);
  for (size_t d = 0; d < 2; ++d) {
    DciDirection& dir = out[d];
    const PhaseRates rates = phase_rates(phase_bytes[d], phase_us);
    dir.job_phase_GBps = rates.GBps;
    dir.job_peak_GBps = rates.peak_GBps;
    dir.peak_phase = rates.peak_phase;
    for (double b : phase_bytes[d]) dir.job_bytes_per_step += b;
    dir.job_avg_GBps = score.step_s > 0 ? dir.job_bytes_per_step / score.step_s / 1e9 : 0;
  }
  return out;
}

Background background_with_transfer(const Background* background, const LinkShare& before,
                                    const std::vector<EdgeId>& edges, double share) {
  Background out;
  if (background) out = *background;
  out.source = (background ? background->source + " and " : "") + "the transfer";
  for (EdgeId e : edges) out.utilization.emplace_back(e, 1 - before.at(e) * (1 - share));
  return out;
}

}  // namespace topoplan

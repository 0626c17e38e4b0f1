#include "observe/observe_job.h"

#include <algorithm>

#include "topology/formats/dot.h"

namespace topoplan {

Result<PortMatch> port_match(const Cluster& c, std::vector<PortRate> rates, const PortMapping* mapping) {
  PortMatch m;
  for (PortRate& r : rates) {
    Result<PortLink> p = port_find(c, r.key, mapping);
    if (!p) {
      m.unmatched.push_back({r.key, r.where, p.error()});
      continue;
    }
    m.ports.push_back(*p);
    m.rates.push_back(std::move(r));
  }
  if (m.rates.empty())
    return Error{"no counter names a link of the cluster (first: " + m.unmatched.front().reason +
                 "); map counters to ports with --port-map (docs/observe.md)"};
  return m;
}

const std::vector<LinkUser>& ObserveJob::users_of(EdgeId edge) const {
  static const std::vector<LinkUser> none;
  auto it = users.find(edge);
  return it == users.end() ? none : it->second;
}

bool ObserveJob::flagged() const {
  return !unmatched.empty() ||
         std::any_of(rows.begin(), rows.end(), [](const LinkObservation& r) { return !r.verdicts.empty(); });
}

Result<ObserveJob> observe_job(const JobInputs& in, PortMatch match, const ObserveJobOptions& o) {
  const Cluster& c = in.cluster;
  const ScoreOptions& options = in.model.options;
  ObserveJob r;
  Result<std::unique_ptr<ScoreState>> state = ScoreState::make(c, *in.router, in.job, in.layout, options);
  RETURN_IF_ERROR(state);
  r.state = std::move(*state);
  Result<JobScore> score = score_report(c, *in.router, in.job, *r.state, options);
  RETURN_IF_ERROR(score);
  r.score = std::move(*score);
  r.options.model_step_s = r.score.step_s;
  r.options.step_s = o.step_s.value_or(r.score.step_s);
  r.options.tolerance = o.tolerance;
  r.step_measured = o.step_s.has_value();
  r.ports = match.rates.size();
  r.rows =
      observe_links(c, match.rates, match.ports, link_phase_bytes(*r.state), phase_durations_us(*r.state), r.options);
  r.unmatched = std::move(match.unmatched);
  std::vector<EdgeId> flagged;
  for (const LinkObservation& row : r.rows)
    if (!row.verdicts.empty()) flagged.push_back(row.edge);
  r.users = link_users(*r.state, *in.router, flagged);
  return r;
}

std::vector<double> observed_ratios(const Cluster& c, const std::vector<LinkObservation>& rows) {
  std::vector<double> out(c.num_edges(), 0);
  for (const LinkObservation& r : rows) {
    double v = 0;
    if (std::optional<double> ratio = r.ratio())
      v = *ratio;
    else if (r.observed_GBps && *r.observed_GBps > 0 && r.predicted_GBps <= 0)
      v = kDotBusyUnpredicted;
    out[r.edge] = std::max(out[r.edge], v);
  }
  return out;
}

}  // namespace topoplan

#include "planner/explain_view.h"

#include "planner/dot_load.h"

namespace topoplan {

DotLoad explain_dot_load(const Cluster& c, const JobScore& s, const std::vector<GroupExplanation>& groups,
                         const std::optional<EdgeId>& link) {
  std::string what;
  for (const GroupExplanation& g : groups)
    what += (what.empty() ? "" : ", ") + g.ref.kind + " " + std::to_string(g.ref.index);
  if (link) what = c.edge_name(*link);
  DotLoad load = dot_load_of(
      c, s, s.job + ": " + what + " in blue; link utilization per step (each edge's busiest link, down / up)");
  if (link) load.highlight_edges.push_back(*link);
  for (const GroupExplanation& g : groups) {
    load.highlight_edges.insert(load.highlight_edges.end(), g.path_edges.begin(), g.path_edges.end());
    for (VertexId v : g.gpus) load.highlight_hosts.push_back(c.device(v).host);
  }
  return load;
}

ReportFocus explain_focus(const std::vector<GroupExplanation>& groups) {
  if (groups.empty()) return {};
  const GroupExplanation& g = groups.front();
  return {g.ref.kind, g.ref.index, std::nullopt, g.has_slowest ? std::optional<EdgeId>(g.slowest) : std::nullopt,
          g.summary};
}

}  // namespace topoplan

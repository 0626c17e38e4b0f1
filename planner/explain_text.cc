#include "planner/explain_text.h"

#include <sstream>

#include "base/index_list.h"
#include "base/units.h"
#include "base/words.h"
#include "planner/score_tables.h"
#include "topology/route_text.h"

namespace topoplan {
namespace {

// "h004 gpu4-7 (ranks 24-27), h005 gpu0-3 (ranks 28-31)", the first 8 hosts.
std::string placement_text(const Cluster& c, const GroupExplanation& g) {
  const std::vector<int> hosts = c.hosts_of(g.gpus);
  std::string out;
  for (size_t k = 0; k < hosts.size() && k < 8; ++k) {
    std::vector<int> gpus, ranks;
    for (size_t i = 0; i < g.gpus.size(); ++i)
      if (c.device(g.gpus[i]).host == hosts[k]) {
        gpus.push_back(c.device(g.gpus[i]).local_index);
        ranks.push_back(g.ranks[i]);
      }
    out += (k ? ", " : "") + c.hosts()[static_cast<size_t>(hosts[k])].name + " gpu" + format_index_list(gpus) +
           (ranks.size() == 1 ? " (rank " : " (ranks ") + format_index_list(ranks) + ")";
  }
  if (hosts.size() > 8) out += " and " + counted(static_cast<int64_t>(hosts.size() - 8), "more host");
  return out;
}

}  // namespace

std::string group_explanation_text(const Cluster& c, const GroupExplanation& g, double exposed_s) {
  std::ostringstream out;
  out << g.summary << "\n  why: " << g.why << "\n";
  if (!g.paths.empty()) out << "  placed on: " << placement_text(c, g) << "\n";
  if (!g.found_traffic) return out.str();
  out << "  its heaviest collective: " << to_string(g.item.op) << " of " << format_bytes(g.item.bytes) << " ("
      << g.item.what << "), " << format_number(g.item.calls, 0)
      << " calls per step: " << format_duration(g.alone_us * 1e-6) << " alone, "
      << format_duration(g.contended_us * 1e-6) << " with every group running\n";
  if (g.has_slowest)
    out << "  slowest link: " << c.edge_name(g.slowest) << " (" << to_string(c.link(g.slowest).kind) << ", "
        << format_number(c.link(g.slowest).bw_GBps, 2) << " GB/s): " << format_number(100 * g.behind_share, 0)
        << "% of each call drains it\n";
  for (const PairPath& p : g.paths) {
    out << "  path rank " << p.from_rank << " -> rank " << p.to_rank << ": " << to_string(p.route.path_class) << ", "
        << format_number(p.route.bw_GBps, 2) << " GB/s";
    if (p.count > 1) out << " (and " << p.count - 1 << (p.count == 2 ? " more pair" : " more pairs") << " alike)";
    out << "\n";
    std::istringstream hops(route_text(c, p.route, false));
    for (std::string line; std::getline(hops, line);) out << "  " << line << "\n";
  }
  for (const InsideUnit& u : g.inside) {
    out << "  inside one " << to_string(u.level) << ": ";
    if (u.possible)
      out << format_duration(u.alone_us * 1e-6) << " per call alone (on " << u.hosts << ")\n";
    else
      out << "not possible: " << u.why_not << "\n";
  }
  for (const Move& m : g.moves)
    out << "  move: " << m.what << ": the job's exposed communication " << format_duration(exposed_s) << " -> "
        << format_duration(m.exposed_s) << "\n";
  if (g.moves.empty()) out << "  move: none on these hosts lowers the job's exposed communication\n";
  return out.str();
}

std::string explain_groups_text(const Cluster& c, const Job& job, const Layout& layout, double exposed_s,
                                const std::vector<GroupExplanation>& groups, ExplainAsked asked, int rank) {
  std::ostringstream out;
  out << job.name << ", layout " << layout.source << ", order " << job.parallel.order << ": exposed communication "
      << format_duration(exposed_s) << " per step\n";
  if (asked == ExplainAsked::rank) out << "rank " << rank << " is in:\n";
  if (asked == ExplainAsked::costliest)
    out << (groups.size() == 1
                ? "the group that costs the most over its best case:\n"
                : "the " + std::to_string(groups.size()) + " groups that cost the most over their best case:\n");
  for (const GroupExplanation& g : groups) {
    out << "\n";
    if (asked == ExplainAsked::rank)
      out << g.summary << "\n  why: " << g.why << "\n";
    else
      out << group_explanation_text(c, g, exposed_s);
  }
  return out.str();
}

std::string link_explanation_text(const Cluster& c, const LinkExplanation& l) {
  std::ostringstream out;
  const size_t ports = bundle_ports(c, l.edge);
  out << c.edge_name(l.edge) << " (" << to_string(c.link(l.edge).kind) << ", "
      << format_number(c.link(l.edge).bw_GBps, 2) << " GB/s"
      << (ports > 1 ? ", each of its " + std::to_string(ports) + " parallel ports" : "") << ") per step:\n";
  if (l.uses.empty()) out << "  no collective of the job crosses it\n";
  for (const LinkExplanation::Use& u : l.uses)
    out << "  " << to_string(u.item.kind) << " " << to_string(u.item.op) << " (" << u.item.what << ", "
        << to_string(u.item.phase) << "): " << u.groups << (u.groups == 1 ? " group, " : " groups, ")
        << format_bytes(u.bytes_per_step) << ", busy " << format_duration(u.busy_s) << "\n";
  for (const auto& p : l.phases)
    out << "  " << p.phase << ": busy " << format_duration(p.busy_s) << " of " << format_duration(p.duration_s) << " ("
        << format_number(100 * p.utilization, 1) << "%)\n";
  return out.str();
}

}  // namespace topoplan

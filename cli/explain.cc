// topoplan explain: why a group of a placed job spans a slow hop, and the move that brings it back
// (planner/explain.h); per rank, per link, or the three costliest groups.
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>

#include "base/index_list.h"
#include "base/units.h"
#include "base/words.h"
#include "cli/dot_flags.h"
#include "cli/html_report.h"
#include "cli/model_flags.h"
#include "cli/tool.h"
#include "planner/explain.h"
#include "planner/explain_json.h"
#include "planner/score_tables.h"
#include "topology/route_text.h"

namespace topoplan::cli {
namespace {

struct Options {
  std::string cluster, job, layout, group, link, html;
  DotFlags dot;
  int rank = -1;
  ModelSources model;
  bool json = false;
};

constexpr size_t kCostliest = 3;

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

void print_group(std::ostream& out, const Cluster& c, const GroupExplanation& g, double exposed_s) {
  out << g.summary << "\n  why: " << g.why << "\n";
  if (!g.paths.empty()) out << "  placed on: " << placement_text(c, g) << "\n";
  if (!g.found_traffic) return;
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
}

// The job's load with what was explained in blue: the links of the groups' paths and their hosts,
// or the one link.
Result<void> write_dot(const Options& o, DotHosts hosts, const Cluster& c, const JobScore& s,
                       const std::vector<GroupExplanation>& groups, const std::optional<EdgeId>& link) {
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
  return dot_write(o.dot.file, c, load, hosts);
}

ReportFocus focus_of(const std::vector<GroupExplanation>& groups) {
  if (groups.empty()) return {};
  const GroupExplanation& g = groups.front();
  return {g.ref.kind, g.ref.index, std::nullopt, g.has_slowest ? std::optional<EdgeId>(g.slowest) : std::nullopt,
          g.summary};
}

int run(const Options& o, std::ostream& printed, std::ostream& err) {
  // With --html what the command prints is also the page's text.
  std::ostringstream buffer;
  std::ostream& out = o.html.empty() ? printed : buffer;
  Result<DotHosts> dot_hosts = dot_hosts_parse(o.dot.hosts);
  if (!dot_hosts) return fail(err, dot_hosts.error());
  const int selectors = !o.group.empty() + (o.rank >= 0) + !o.link.empty();
  if (selectors > 1) return fail(err, "give one of --group, --rank or --link, not several");
  std::optional<GroupRef> ref;
  if (!o.group.empty()) {
    Result<GroupRef> g = group_ref_parse(o.group);
    if (!g) return fail(err, g.error());
    ref = *g;
  }
  Result<std::unique_ptr<JobInputs>> in = job_inputs_load(o.cluster, o.job, o.layout, o.model);
  if (!in) return fail(err, in.error());
  JobInputs& i = **in;
  const Cluster& c = i.cluster;
  Result<std::unique_ptr<Explainer>> ex = Explainer::make(c, *i.router, i.job, i.layout, i.down, i.model.options);
  if (!ex) return fail(err, o.job + ": " + ex.error());
  const double exposed = (*ex)->score().exposed_comm_s;
  // The page opens on the group (the first one when there are several) or the link explained.
  auto done = [&](const ReportFocus& focus) {
    if (o.html.empty()) return kExitOk;
    printed << buffer.str();
    const Job& job = (*ex)->job();
    if (Result<void> ok = html_report_write(o.html, c, {{"layout " + i.layout.source, &job, &(*ex)->score()}},
                                            job.name + " on " + o.cluster + ": explain", buffer.str(), focus);
        !ok)
      return fail(err, ok.error());
    return kExitOk;
  };
  nlohmann::json j = {
      {"job", i.job.name}, {"layout", i.layout.source}, {"order", i.job.parallel.order}, {"exposed_comm_s", exposed}};
  if (!o.link.empty()) {
    Result<LinkExplanation> l = (*ex)->link(o.link);
    if (!l) return fail(err, l.error());
    if (!o.dot.file.empty())
      if (Result<void> ok = write_dot(o, *dot_hosts, c, (*ex)->score(), {}, l->edge); !ok) return fail(err, ok.error());
    if (o.json) {
      j["link"] = link_explanation_json(c, *l);
      out << j.dump(2) << "\n";
      return done({"", 0, l->edge});
    }
    const size_t ports = bundle_ports(c, l->edge);
    out << c.edge_name(l->edge) << " (" << to_string(c.link(l->edge).kind) << ", "
        << format_number(c.link(l->edge).bw_GBps, 2) << " GB/s"
        << (ports > 1 ? ", each of its " + std::to_string(ports) + " parallel ports" : "") << ") per step:\n";
    if (l->uses.empty()) out << "  no collective of the job crosses it\n";
    for (const LinkExplanation::Use& u : l->uses)
      out << "  " << to_string(u.item.kind) << " " << to_string(u.item.op) << " (" << u.item.what << ", "
          << to_string(u.item.phase) << "): " << u.groups << (u.groups == 1 ? " group, " : " groups, ")
          << format_bytes(u.bytes_per_step) << ", busy " << format_duration(u.busy_s) << "\n";
    for (const auto& p : l->phases)
      out << "  " << p.phase << ": busy " << format_duration(p.busy_s) << " of " << format_duration(p.duration_s)
          << " (" << format_number(100 * p.utilization, 1) << "%)\n";
    return done({"", 0, l->edge});
  }
  std::vector<GroupExplanation> groups;
  if (ref) {
    Result<GroupExplanation> g = (*ex)->group(*ref);
    if (!g) return fail(err, g.error());
    groups.push_back(std::move(*g));
  } else if (o.rank >= 0) {
    Result<std::vector<GroupExplanation>> r = (*ex)->rank(o.rank);
    if (!r) return fail(err, r.error());
    groups = std::move(*r);
  } else {
    Result<std::vector<GroupExplanation>> r = (*ex)->costliest(kCostliest);
    if (!r) return fail(err, r.error());
    groups = std::move(*r);
  }
  if (!o.dot.file.empty())
    if (Result<void> ok = write_dot(o, *dot_hosts, c, (*ex)->score(), groups, std::nullopt); !ok)
      return fail(err, ok.error());
  if (o.json) {
    j["groups"] = nlohmann::json::array();
    for (const GroupExplanation& g : groups) j["groups"].push_back(group_explanation_json(c, g));
    out << j.dump(2) << "\n";
    return done(focus_of(groups));
  }
  out << i.job.name << ", layout " << i.layout.source << ", order " << i.job.parallel.order
      << ": exposed communication " << format_duration(exposed) << " per step\n";
  if (o.rank >= 0) out << "rank " << o.rank << " is in:\n";
  if (!ref && o.rank < 0)
    out << (groups.size() == 1
                ? "the group that costs the most over its best case:\n"
                : "the " + std::to_string(groups.size()) + " groups that cost the most over their best case:\n");
  for (const GroupExplanation& g : groups) {
    out << "\n";
    if (o.rank >= 0)
      out << g.summary << "\n  why: " << g.why << "\n";
    else
      print_group(out, c, g, exposed);
  }
  return done(focus_of(groups));
}

Run setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--cluster", o->cluster, "preset spec (dgx-h100:16) or cluster file")->required();
  app.add_option("--job", o->job, kJobHelp)->required();
  app.add_option("--layout", o->layout, std::string(kLayoutHelp) + "; default: host-major");
  app.add_option("--group", o->group, "KIND:INDEX, kinds tp, cp, dp, pp, ep, etp, edp (e.g. tp:3)");
  app.add_option("--rank", o->rank, "every group this rank is in")->check(CLI::NonNegativeNumber);
  app.add_option("--link", o->link, "'a -> b' as score lists links: which collectives load it, by phase");
  model_flags_add(app, o->model);
  dot_flags_add(app, o->dot,
                "write the job's load (as score --dot) with the explained groups' paths and hosts in blue, or the "
                "--link; --rank marks hosts only");
  app.add_option("--html", o->html,
                 "write a self-contained HTML report opened on the group or link explained, with this text");
  app.add_flag("--json", o->json, "machine-readable output");
  return [o](std::ostream& out, std::ostream& err) { return run(*o, out, err); };
}

}  // namespace

Tool explain_tool() { return {"explain", "why a group spans a slow hop, and the move that brings it back", setup}; }

}  // namespace topoplan::cli

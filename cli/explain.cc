// topoplan explain: why a group of a placed job spans a slow hop, and the move that brings it back
// (planner/explain.h); per rank, per link, or the three costliest groups.
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>

#include "cli/dot_flags.h"
#include "cli/model_flags.h"
#include "cli/tool.h"
#include "planner/explain.h"
#include "planner/explain_json.h"
#include "planner/explain_text.h"
#include "planner/explain_view.h"
#include "planner/html_report.h"

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
      if (Result<void> ok = dot_write(o.dot.file, c, explain_dot_load(c, (*ex)->score(), {}, l->edge), *dot_hosts); !ok)
        return fail(err, ok.error());
    if (o.json) {
      j["link"] = link_explanation_json(c, *l);
      out << j.dump(2) << "\n";
      return done({"", 0, l->edge});
    }
    out << link_explanation_text(c, *l);
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
    if (Result<void> ok =
            dot_write(o.dot.file, c, explain_dot_load(c, (*ex)->score(), groups, std::nullopt), *dot_hosts);
        !ok)
      return fail(err, ok.error());
  if (o.json) {
    j["groups"] = nlohmann::json::array();
    for (const GroupExplanation& g : groups) j["groups"].push_back(group_explanation_json(c, g));
    out << j.dump(2) << "\n";
    return done(explain_focus(groups));
  }
  const ExplainAsked asked = ref ? ExplainAsked::group : o.rank >= 0 ? ExplainAsked::rank : ExplainAsked::costliest;
  out << explain_groups_text(c, i.job, i.layout, exposed, groups, asked, o.rank);
  return done(explain_focus(groups));
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

// topoplan score: a job placed on a cluster, its exposed communication per step, the hottest
// links and findings (planner/score.h).
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>

#include "cli/dot_flags.h"
#include "cli/host_flags.h"
#include "cli/model_flags.h"
#include "cli/tool.h"
#include "observe/scored_traffic_text.h"
#include "planner/arrival.h"
#include "planner/dot_load.h"
#include "planner/html_report.h"
#include "planner/links_csv.h"
#include "planner/score.h"
#include "planner/score_json.h"
#include "planner/score_text.h"
#include "topology/down.h"
#include "topology/load.h"

namespace topoplan::cli {
namespace {

struct Options {
  std::string cluster, job, layout, links, html, traffic, running, alignment = "average";
  DotFlags dot;
  ModelSources model;
  bool json = false;
};

int run(const Options& o, std::ostream& out, std::ostream& err) {
  Result<DotHosts> dot_hosts = dot_hosts_parse(o.dot.hosts);
  if (!dot_hosts) return fail(err, dot_hosts.error());
  Result<std::unique_ptr<JobInputs>> in = job_inputs_load(o.cluster, o.job, o.layout, o.model);
  if (!in) return fail(err, in.error());
  const JobInputs& i = **in;
  const Cluster& c = i.cluster;
  ScoreOptions options = i.model.options;
  // Beside the running jobs, their traffic is all that else loads the fabric.
  DownSet down = i.down;
  Result<std::optional<RunningJobs>> loaded = running_flag(c, o.running, down);
  if (!loaded) return fail(err, loaded.error());
  const std::optional<RunningJobs>& running = *loaded;
  std::optional<Arrival> arrival;
  const Router* router = i.router.get();
  std::unique_ptr<Router> merged;
  if (running) {
    // What the running jobs' plans found down is down for this job too.
    if (!running->down.empty()) {
      merged = std::make_unique<Router>(c, down);
      router = merged.get();
    }
    Result<Arrival> a = arrival_compute(c, *router, *running,
                                        {i.job.name, o.layout.empty() ? o.job : o.layout, i.job, i.layout}, options);
    if (!a) return fail(err, a.error());
    arrival = std::move(*a);
    options.fabric = FabricMode::idle;
    options.background =
        &arrival->job().background[static_cast<size_t>(o.alignment == "worst" ? Alignment::worst : Alignment::average)];
  }
  std::optional<ScoredTraffic> observed;
  if (!o.traffic.empty()) {
    Result<ScoredTraffic> t = scored_traffic_load(o.traffic, c, i.job, i.layout);
    if (!t) return fail(err, t.error());
    observed = std::move(*t);
    options.traffic = &observed->traffic;
  }
  Result<JobScore> s = score_job(c, *router, i.job, i.layout, options);
  if (!s) return fail(err, o.job + ": " + s.error());
  if (!o.links.empty()) {
    std::ofstream f(o.links);
    if (!f) return fail(err, o.links + ": cannot write");
    if (!(f << links_csv(c, *s))) return fail(err, o.links + ": write failed");
  }
  if (!o.dot.file.empty()) {
    const DotLoad load =
        dot_load_of(c, *s, s->job + ": link utilization per step (each edge's busiest link, down / up)");
    if (Result<void> ok = dot_write(o.dot.file, c, load, *dot_hosts); !ok) return fail(err, ok.error());
  }
  // The text once: printed, and the page's with --html.
  std::ostringstream text;
  if (!o.json || !o.html.empty()) {
    text << score_text(c, o.cluster, *s);
    if (observed) text << scored_traffic_text(o.traffic, *observed);
    if (arrival) text << arrival_text(*running, *arrival);
  }
  if (!o.html.empty()) {
    ReportFocus focus;
    focus.verdict = score_verdict(*s);
    if (Result<void> ok = html_report_write(o.html, c, {{"layout " + s->layout, &i.job, &*s}},
                                            s->job + " on " + o.cluster, text.str(), focus);
        !ok)
      return fail(err, ok.error());
  }
  if (o.json) {
    nlohmann::json j = score_to_json(c, *router, o.cluster, *s);
    if (observed)
      j["traffic"] = {{"source", o.traffic},
                      {"matched", observed->matched},
                      {"unscored", observed->unscored},
                      {"notes", observed->notes}};
    if (arrival) j["running"] = arrival_json(*running, *arrival);
    out << j.dump(2) << "\n";
  } else
    out << text.str();
  return kExitOk;
}

Run setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--cluster", o->cluster, "preset spec (dgx-h100:16) or cluster file")->required();
  app.add_option("--job", o->job, kJobHelp)->required();
  app.add_option("--layout", o->layout, std::string(kLayoutHelp) + "; default: host-major");
  model_flags_add(app, o->model);
  CLI::Option* running = app.add_option(
      "--running", o->running,
      "the jobs already running (as contention --running takes them): the job is scored beside their traffic, "
      "and what it adds to their steps is listed");
  running->excludes(app.get_option("--fabric"))->excludes(app.get_option("--background"));
  app.add_option("--alignment", o->alignment,
                 "with --running, the step the score gives: average (phases unaligned, default) or worst (every job "
                 "at its busiest phase at once)")
      ->check(CLI::IsMember({"average", "worst"}))
      ->needs(running);
  app.add_option("--traffic", o->traffic,
                 "score the collectives NCCL's log shows (`topoplan traffic --json` output) instead of the model's");
  app.add_option("--links", o->links, "write every loaded link (both directions, per step) as CSV");
  dot_flags_add(app, o->dot, "write the job's part of the cluster, links coloured by utilization (Graphviz)");
  app.add_option("--html", o->html,
                 "write a self-contained HTML report: the fabric as a heat map, the job's groups on it, this text");
  app.add_flag("--json", o->json, "machine-readable output");
  return [o](std::ostream& out, std::ostream& err) { return run(*o, out, err); };
}

}  // namespace

Tool score_tool() {
  return {"score", "score a job's placement: exposed communication, hottest links, findings", setup};
}

}  // namespace topoplan::cli

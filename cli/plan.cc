// topoplan plan: the hosts, the order string and the GPU of every rank that keep a job's heavy
// traffic on fast links, written for the launcher (planner/plan.h, planner/emit/).
#include <unistd.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>

#include "base/units.h"
#include "cli/emit_flags.h"
#include "cli/host_flags.h"
#include "cli/model_flags.h"
#include "cli/tool.h"
#include "planner/alternatives_text.h"
#include "planner/emit/emit.h"
#include "planner/html_report.h"
#include "planner/plan.h"
#include "planner/plan_files.h"
#include "planner/plan_json.h"
#include "planner/plan_running.h"
#include "planner/plan_text.h"
#include "topology/down.h"
#include "topology/load.h"
#include "topology/summary.h"

namespace topoplan::cli {
namespace {

struct Options {
  std::string cluster, job, nodes, exclude, keep, time_limit, html, running, alignment = "average";
  double weight = 1;
  EmitFlags emit;
  ModelSources model;
  uint64_t seed = 1;
  bool json = false;
};

int run(const Options& o, std::ostream& out, std::ostream& err) {
  Result<Cluster> c = cluster_load(o.cluster);
  if (!c) return fail(err, c.error());
  PlanRequest req;
  req.seed = o.seed;
  if (!o.nodes.empty()) {
    Result<std::vector<int>> hosts = nodes_flag(*c, o.nodes, "--nodes");
    if (!hosts) return fail(err, hosts.error());
    req.free = *hosts;
  }
  // Megatron-LM arguments without a world size fill the allocation: --nodes, else the cluster.
  WorldHint world{static_cast<int>(c->gpus().size()), "the GPUs of cluster " + o.cluster};
  if (!req.free.empty()) {
    world.ranks = gpus_on(*c, req.free);
    world.from = "the GPUs of the " + std::to_string(req.free.size()) + " hosts of --nodes";
  }
  Result<Job> job = job_load(o.job, [&]() -> Result<WorldHint> { return world; });
  if (!job) return fail(err, job.error());
  // With -o alone the plan file; --emit names what to write.
  Result<EmitList> files = emit_flags(o.emit);
  if (!files) return fail(err, files.error());
  if (!o.exclude.empty()) {
    Result<DownSet> down = exclude_flag(*c, o.exclude);
    if (!down) return fail(err, down.error());
    req.down = std::move(*down);
  }
  if (!o.keep.empty()) {
    Result<std::vector<std::string>> keep = keep_rules_parse(o.keep);
    if (!keep) return fail(err, keep.error());
    req.keep = *keep;
    req.keep_given = true;
  }
  if (!o.time_limit.empty()) {
    Result<double> t = parse_duration_s(o.time_limit);
    if (!t) return fail(err, "--time-limit: " + t.error());
    req.time_limit_s = *t;
  }
  ModelInputs model;
  if (Result<void> ok = model_inputs_load(o.model, *c, model); !ok) return fail(err, ok.error());
  req.score = model.options;
  // Progress on a terminal, once the run has taken a second.
  const double start = wall_seconds();
  bool shown = false;
  if (isatty(STDERR_FILENO))
    req.progress = [&](const std::string& what) {
      if (wall_seconds() - start < 1) return;
      err << "\r" << format_duration(wall_seconds() - start) << ": " << what << "\033[K" << std::flush;
      shown = true;
    };
  Result<std::optional<RunningJobs>> loaded = running_flag(*c, o.running, req.down);
  if (!loaded) return fail(err, loaded.error());
  const std::optional<RunningJobs>& running = *loaded;
  Router router(*c, req.down);
  // Too few GPUs: say which layouts of the job do fit them rather than only what is short.
  int up = 0;
  for (int h : hosts_offered(*c, req.free)) up += static_cast<int>(req.down.gpus_up(*c, h).size());
  if (up < job_ranks(*job)) {
    const std::string short_of =
        "the job needs " + std::to_string(job_ranks(*job)) + " GPUs; " +
        (req.free.empty() ? "the cluster has " : "the " + std::to_string(req.free.size()) + " free hosts have ") +
        std::to_string(up) + " up";
    Result<Alternatives> fit = job_alternatives(*c, router, *job, {req.free, req.down, req.score, 5});
    if (!fit) return fail(err, o.job + ": " + short_of + "; " + fit.error());
    return fail(err, o.job + ": " + alternatives_text(*job, *fit, short_of) +
                         "the list with --json: topoplan advise --alternatives with the same --cluster and --job, and "
                         "--free for --nodes\n");
  }
  // Beside running jobs: their hosts are busy and their traffic the background.
  std::optional<RunningPlan> beside;
  Result<Plan> plan = Error{""};
  if (!o.running.empty()) {
    Result<RunningPlan> p = plan_beside_running(
        *c, router, *job, req, {&*running, o.weight, o.alignment == "worst" ? Alignment::worst : Alignment::average});
    if (!p) {
      plan = Error{p.error()};
    } else {
      beside = std::move(*p);
      plan = beside->plan;
      // What the plan file says it was scored beside.
      req.score.fabric = FabricMode::idle;
      req.score.background = &beside->arrival.job().background[static_cast<size_t>(beside->request.alignment)];
    }
  } else {
    plan = plan_job(*c, router, *job, req);
  }
  if (shown) err << "\n";
  if (!plan) return fail(err, o.job + ": " + plan.error());
  // No rank order changes what a GPU holds: a job over memory gets no plan to launch.
  if (!plan->score.memory.fits())
    return fail(err, o.job + ": " + memory_over_text(plan->job, plan->score.traffic.compute.gpu, plan->score.memory));

  PlanFiles written;
  if (!o.emit.out_dir.empty()) {
    Result<PlanFiles> w = plan_files_write(o.emit.out_dir, *files, *c, router, o.cluster, *plan, req);
    if (!w) return fail(err, w.error());
    written = std::move(*w);
  }
  // The text once: printed, and the page's with --html.
  std::ostringstream text;
  if (!o.json || !o.html.empty()) {
    text << plan_text(*c, o.cluster, *plan, written.written);
    if (beside) text << running_plan_text(*beside);
  }
  // What a file left out: in the text, or beside the JSON on stderr.
  for (const std::string& note : written.notes) (o.json ? err : text) << "note: " << note << "\n";
  if (!o.html.empty()) {
    // The input order beside the plan, scored as `score --layout` would.
    std::vector<ReportPart> parts;
    std::optional<JobScore> input;
    if (plan->input_layout)
      if (Result<JobScore> s = score_job(*c, router, *job, *plan->input_layout, req.score)) input = std::move(*s);
    if (input) parts.push_back({"input order (hosts as offered, order " + job->parallel.order + ")", &*job, &*input});
    parts.push_back({"plan (order " + plan->job.parallel.order + ")", &plan->job, &plan->score});
    if (Result<void> ok =
            html_report_write(o.html, *c, parts, plan->job.name + " on " + o.cluster + ": plan", text.str());
        !ok)
      return fail(err, ok.error());
  }
  if (o.json) {
    nlohmann::json j = plan_to_json(*c, router, o.cluster, *plan, req);
    if (beside) j["running"] = running_plan_json(*c, *beside);
    out << j.dump(2) << "\n";
  } else
    out << text.str();
  return kExitOk;
}

Run setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--cluster", o->cluster, "preset spec (dgx-h100:16) or cluster file")->required();
  app.add_option("--job", o->job, kJobHelp)->required();
  app.add_option("--nodes", o->nodes,
                 "the allocation: a Slurm hostlist (h[0001-0016,0033]) or @FILE with one host per line; "
                 "default every host, and the planner picks which");
  app.add_option(
      "--exclude", o->exclude,
      "GPUs, NICs, switches, hosts or links that are down, comma-separated (links as 'leaf0<->spine3'), or @FILE; "
      "`topoplan topo show CLUSTER --names` lists every name it takes");
  app.add_option("--keep", o->keep,
                 "rules that must hold: tp-in-domain, dp-only-across-sites (both kept where they can be by "
                 "default), or none");
  app.add_option("--seed", o->seed, "seed of the local search (the same seed gives the same plan)");
  app.add_option("--time-limit", o->time_limit, "stop the search after this long (e.g. 30s, 5min)");
  emit_flags_add(app, o->emit, "directory for the plan (plan.json) and --emit files");
  model_flags_add(app, o->model);
  CLI::Option* running = app.add_option(
      "--running", o->running,
      "the jobs already running (as contention --running takes them): their hosts are busy, the job is planned "
      "beside their traffic, and the plan weighs its own step against the time it costs them");
  running->excludes(app.get_option("--background"));
  app.add_option("--weight", o->weight,
                 "with --running: the others' lost GPU time against the job's own (default 1: the cluster's lost "
                 "GPU time)")
      ->check(CLI::Range(0.0, 1000.0))
      ->needs(running);
  app.add_option("--alignment", o->alignment,
                 "with --running: average (phases unaligned, default) or worst (every job at its busiest phase at "
                 "once)")
      ->check(CLI::IsMember({"average", "worst"}))
      ->needs(running);
  app.add_option(
      "--html", o->html,
      "write a self-contained HTML report: the plan's load on the fabric as a heat map, its groups, this text");
  app.add_flag("--json", o->json, "the plan as JSON on stdout");
  return [o](std::ostream& out, std::ostream& err) { return run(*o, out, err); };
}

}  // namespace

Tool plan_tool() {
  return {"plan", "choose the hosts, the rank order and the GPU of every rank, and write them for the launcher", setup};
}

}  // namespace topoplan::cli

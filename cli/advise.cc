// topoplan advise: what a scheduler or a user should ask for. By default what each allocation shape
// costs the job (planner/shape_curve.h); --alternatives: the job's other parallel sizes that fit
// the hosts, legal for the model and within GPU memory, fastest first (planner/alternatives.h);
// --candidates: a scheduler's candidate allocations, each planned, ranked (planner/candidates.h).
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "cli/host_flags.h"
#include "cli/model_flags.h"
#include "cli/tool.h"
#include "planner/alternatives_text.h"
#include "planner/candidates_text.h"
#include "planner/shape_curve_text.h"
#include "topology/down.h"
#include "topology/load.h"

namespace topoplan::cli {
namespace {

struct Options {
  std::string cluster, job, free, busy, exclude, candidates, running, alignment = "average";
  double weight = 1;
  ModelSources model;
  bool alternatives = false, json = false, quick = false;
  size_t limit = 10;
};

int run(const Options& o, std::ostream& out, std::ostream& err) {
  Result<Cluster> c = cluster_load(o.cluster);
  if (!c) return fail(err, c.error());
  AlternativesRequest req;
  req.limit = o.limit;
  if (!o.free.empty()) {
    Result<std::vector<int>> hosts = nodes_flag(*c, o.free, "--free");
    if (!hosts) return fail(err, hosts.error());
    req.free = *hosts;
  }
  if (!o.busy.empty()) {
    Result<std::vector<int>> busy = nodes_flag(*c, o.busy, "--busy");
    if (!busy) return fail(err, busy.error());
    std::vector<char> is_busy(c->hosts().size(), 0);
    for (int h : *busy) is_busy[static_cast<size_t>(h)] = 1;
    for (int h = 0; h < static_cast<int>(c->hosts().size()); ++h)
      if (!is_busy[static_cast<size_t>(h)]) req.free.push_back(h);
    if (req.free.empty()) return fail(err, "--busy: every host is busy");
  }
  const bool some_free = !o.free.empty() || !o.busy.empty();
  if (!o.exclude.empty()) {
    Result<DownSet> down = exclude_flag(*c, o.exclude);
    if (!down) return fail(err, down.error());
    req.down = std::move(*down);
  }
  Result<Job> job = job_load(o.job);
  if (!job) return fail(err, job.error());
  ModelInputs model;
  if (Result<void> ok = model_inputs_load(o.model, *c, model); !ok) return fail(err, ok.error());
  req.score = model.options;
  Result<std::optional<RunningJobs>> loaded = running_flag(*c, o.running, req.down);
  if (!loaded) return fail(err, loaded.error());
  const std::optional<RunningJobs>& running = *loaded;
  Router router(*c, req.down);
  if (!o.candidates.empty()) {
    Result<std::vector<CandidateAllocation>> cands = candidates_load(*c, o.candidates);
    if (!cands) return fail(err, cands.error());
    PlanRequest plan;
    plan.down = req.down;
    plan.score = req.score;
    plan.search = !o.quick;
    // Beside running jobs: each candidate planned as plan --nodes --running plans it.
    RunningPlanRequest beside;
    if (running) beside = {&*running, o.weight, o.alignment == "worst" ? Alignment::worst : Alignment::average};
    Result<CandidateRanking> ranking = candidates_rank(*c, router, *job, *cands, plan, running ? &beside : nullptr);
    if (!ranking) return fail(err, o.job + ": " + ranking.error());
    if (o.json)
      out << candidates_json(*c, *job, *cands, *ranking).dump(2) << "\n";
    else
      out << candidates_text(*job, *cands, *ranking);
    const bool any = !ranking->ranked.empty() && ranking->results[ranking->ranked.front()].holds;
    return any ? kExitOk : kExitCheckFailed;
  }
  if (!o.alternatives) {
    // The shapes the fabric allows, on every host; with free hosts, the best on them now beside.
    PlanRequest plan;
    plan.down = req.down;
    plan.score = req.score;
    Result<ShapeCurve> curve = shape_curve(*c, router, *job, plan);
    if (!curve) return fail(err, o.job + ": " + curve.error());
    std::optional<Plan> now;
    if (some_free) {
      plan.free = req.free;
      Result<Plan> p = plan_job(*c, router, *job, plan);
      if (!p) return fail(err, o.job + ": on the free hosts: " + p.error());
      now = std::move(*p);
    }
    if (o.json)
      out << shape_curve_json(*c, *job, *curve, now ? &*now : nullptr).dump(2) << "\n";
    else
      out << shape_curve_text(*c, *job, *curve, now ? &*now : nullptr);
    return kExitOk;
  }
  Result<Alternatives> list = job_alternatives(*c, router, *job, req);
  if (!list) return fail(err, o.job + ": " + list.error());
  if (o.json) {
    out << alternatives_json(*c, *job, *list).dump(2) << "\n";
    return kExitOk;
  }
  const int need = job_ranks(*job);
  out << alternatives_text(
      *job, *list,
      job->name + " as given needs " + std::to_string(need) + " GPUs; " +
          (req.free.empty() ? "the cluster has " : "the " + std::to_string(req.free.size()) + " free hosts have ") +
          std::to_string(list->gpus_available) + " up");
  return kExitOk;
}

Run setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--cluster", o->cluster, "preset spec (dgx-h100:16) or cluster file")->required();
  app.add_option("--job", o->job, kJobHelp)->required();
  CLI::Option* candidates = app.add_option(
      "--candidates", o->candidates,
      "a file of candidate allocations, one per line: a Slurm hostlist, or JSON {\"id\": ..., \"hosts\": ...}; each "
      "planned as plan --nodes would, ranked by step (exit 1 when none holds the job)");
  app.add_flag("--quick", o->quick,
               "with --candidates: each candidate placed as plan's construction places it (the best order string in "
               "topology order), without the local search")
      ->needs(candidates);
  CLI::Option* alternatives = app.add_flag(
      "--alternatives", o->alternatives,
      "the job's other tp, pp, cp, ep and dp sizes that fit the hosts, legal for the model, with its global "
      "batch and within GPU memory, fastest first");
  CLI::Option* free = app.add_option(
      "--free", o->free,
      "the hosts free now: a Slurm hostlist (h[0001-0016]) or @FILE; the planner's best on them beside the shapes, "
      "and what waiting for the best shape would gain; with --alternatives, the hosts to fit");
  CLI::Option* busy =
      app.add_option("--busy", o->busy, "the hosts busy now (every other host is free), as --free takes them")
          ->excludes(free);
  candidates->excludes(alternatives)->excludes(free)->excludes(busy);
  CLI::Option* running = app.add_option(
      "--running", o->running,
      "with --candidates: the jobs already running (as contention --running takes them); each candidate planned "
      "beside them as plan --running plans it, ranked by its step weighed with the GPU time it costs them");
  running->needs(candidates)->excludes(app.get_option("--quick"));
  app.add_option("--weight", o->weight, "with --running: the others' lost GPU time against the job's own (default 1)")
      ->check(CLI::Range(0.0, 1000.0))
      ->needs(running);
  app.add_option(
         "--alignment", o->alignment,
         "with --running: average (phases unaligned, default) or worst (every job at its busiest phase at once)")
      ->check(CLI::IsMember({"average", "worst"}))
      ->needs(running);
  app.add_option("--exclude", o->exclude,
                 "GPUs, NICs, switches, hosts or links that are down, comma-separated, or @FILE (as plan takes it)");
  app.add_option("--limit", o->limit, "how many layouts to list (default 10)")->check(CLI::Range(1, 1000));
  model_flags_add(app, o->model);
  running->excludes(app.get_option("--background"))->excludes(app.get_option("--fabric"));
  app.add_flag("--json", o->json, "the list as JSON on stdout");
  return [o](std::ostream& out, std::ostream& err) { return run(*o, out, err); };
}

}  // namespace

Tool advise_tool() {
  return {
      "advise",
      "what to ask for: what each allocation shape costs the job, (--alternatives) its sizes that fit the hosts, or "
      "(--candidates) which candidate allocation to take",
      setup};
}

}  // namespace topoplan::cli

// topoplan replan: a plan after hosts failed: their ranks on the best spares, every other rank where
// it was, the same files as plan and the ranks that moved (planner/replan.h).
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#include "base/file_io.h"
#include "cli/emit_flags.h"
#include "cli/host_flags.h"
#include "cli/model_flags.h"
#include "cli/tool.h"
#include "planner/emit/emit.h"
#include "planner/job_inputs.h"
#include "planner/plan_files.h"
#include "planner/plan_json.h"
#include "planner/replan_text.h"
#include "topology/degraded.h"
#include "topology/summary.h"

namespace topoplan::cli {
namespace {

struct Options {
  std::string plan, cluster, failed, spares;
  EmitFlags emit;
  std::vector<std::string> degraded;
  ModelSources model;
  uint64_t seed = 1;
  bool json = false;
};

int run(const Options& o, std::ostream& out, std::ostream& err) {
  if (o.failed.empty() && o.degraded.empty()) return fail(err, "give --failed, --degraded or both (see 'replan --help')");
  Result<std::unique_ptr<JobInputs>> in = job_inputs_from_plan(o.plan, o.cluster, o.model);
  if (!in) return fail(err, in.error());
  ReplanRequest req;
  if (!o.degraded.empty()) {
    // The links as they run now; device ids are the same, so the plan's layout still holds.
    Result<Degraded> slower = cluster_degraded((*in)->cluster, o.degraded);
    if (!slower) return fail(err, slower.error());
    (*in)->router.reset();  // built on the links as they were; replan builds its own below
    (*in)->cluster = std::move(slower->cluster);
    req.degraded = slower->hosts;
  }
  const Cluster& c = (*in)->cluster;
  const std::string& cluster_spec = (*in)->cluster_spec;
  req.seed = o.seed;
  if (!o.failed.empty()) {
    Result<std::vector<int>> failed = nodes_flag(c, o.failed, "--failed");
    if (!failed) return fail(err, failed.error());
    req.failed = *failed;
  }
  if (!o.spares.empty()) {
    Result<std::vector<int>> spares = nodes_flag(c, o.spares, "--spares");
    if (!spares) return fail(err, spares.error());
    req.spares = *spares;
  }
  // What the plan avoided, and now the failed hosts too.
  std::vector<std::string> down = (*in)->layout.down;
  for (const std::string& name : host_names(c, req.failed)) down.push_back(name);
  Result<DownSet> parsed = down_parse(c, down);
  if (!parsed) return fail(err, o.plan + ": exclude: " + parsed.error());
  req.down = std::move(*parsed);
  req.score = (*in)->model.options;
  Result<EmitList> files = emit_flags(o.emit);
  if (!files) return fail(err, files.error());

  Router router(c, req.down);
  Result<Replan> rp = replan_job(c, router, (*in)->job, (*in)->layout, req);
  if (!rp) return fail(err, o.plan + ": " + rp.error());
  PlanRequest as_plan;
  as_plan.down = req.down;
  as_plan.score = req.score;
  as_plan.seed = req.seed;
  std::vector<std::string> written;
  if (!o.emit.out_dir.empty()) {
    Result<PlanFiles> w = plan_files_write(o.emit.out_dir, *files, c, router, cluster_spec, rp->plan, as_plan);
    if (!w) return fail(err, w.error());
    const std::string moved = o.emit.out_dir + "/moved.txt";
    if (!text_write_file(moved, moved_ranks_text(c, (*in)->layout, *rp))) return fail(err, moved + ": cannot write");
    written = std::move(w->written);
    written.push_back(moved);
    for (const std::string& note : w->notes) err << "note: " << note << "\n";
  }
  if (o.json)
    out << replan_json(c, *rp, plan_to_json(c, router, cluster_spec, rp->plan, as_plan)).dump(2) << "\n";
  else
    out << replan_text(c, o.plan, *rp, written);
  return kExitOk;
}

Run setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--plan", o->plan, "the plan file (plan.json) whose hosts failed")->required();
  app.add_option("--cluster", o->cluster, "the cluster (default: the one the plan names)");
  app.add_option("--failed", o->failed, "the plan's hosts that failed: a Slurm hostlist (h[005,009]) or @FILE");
  app.add_option("--degraded", o->degraded,
                 "a NIC or cable that runs slower, NAME=RATE (h005/nic0=200Gbps, leaf0<->spine3=25GB/s); its hosts' "
                 "ranks move when a spare shortens the step (repeatable)");
  app.add_option("--spares", o->spares,
                 "hosts that may take their ranks: a Slurm hostlist or @FILE; default every host the plan does not use");
  app.add_option("--seed", o->seed, "seed of the full re-plan's search");
  emit_flags_add(app, o->emit, "directory for the mended plan (plan.json), --emit files and moved.txt");
  model_flags_add(app, o->model);
  app.add_flag("--json", o->json, "the result as JSON on stdout, the mended plan under \"plan\"");
  return [o](std::ostream& out, std::ostream& err) { return run(*o, out, err); };
}

}  // namespace

Tool replan_tool() {
  return {"replan", "after hosts of a plan fail: their ranks on the best spares, every other rank kept", setup};
}

}  // namespace topoplan::cli

// topoplan contention: the jobs running on a cluster, who slows whom and on which links
// (planner/contention.h).
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/tool.h"
#include "planner/contention_text.h"
#include "planner/job_inputs.h"
#include "topology/down.h"
#include "topology/load.h"

namespace topoplan::cli {
namespace {

struct Options {
  std::string cluster, running, calibration, html, alignment = "average";
  size_t links = 10;
  bool json = false;
};

int run(const Options& o, std::ostream& out, std::ostream& err) {
  Result<Cluster> c = cluster_load(o.cluster);
  if (!c) return fail(err, c.error());
  ModelInputs model;
  if (Result<void> ok = model_inputs_load({.calibration = o.calibration, .fabric = "idle"}, *c, model); !ok)
    return fail(err, ok.error());
  Result<RunningJobs> running = running_jobs_load(o.running, *c);
  if (!running) return fail(err, running.error());
  Result<DownSet> down = down_parse(*c, running->down);
  if (!down) return fail(err, o.running + ": exclude: " + down.error());
  const Router router(*c, *down);
  Result<Contention> k = contention_compute(*c, router, running->jobs, model.options);
  if (!k) return fail(err, k.error());
  const std::string text = contention_text(*c, *running, *k, o.links);
  if (!o.html.empty())
    if (Result<void> ok = contention_html_write(o.html, *c, *running, *k, text); !ok) return fail(err, ok.error());
  if (o.json)
    out << contention_json(*c, *running, *k, o.alignment == "worst" ? Alignment::worst : Alignment::average).dump(2)
        << "\n";
  else
    out << text;
  return kExitOk;
}

Run setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--cluster", o->cluster, "preset spec (dgx-h100:16) or cluster file")->required();
  app.add_option(
         "--running", o->running,
         "the running jobs: a file {\"format\": \"topoplan-running\", \"jobs\": [{\"name\": ..., \"plan\": "
         "FILE} or {\"name\": ..., \"job\": FILE, \"layout\": FILE}]} and/or Slurm's view (\"slurm\": scontrol "
         "show job or squeue --json output, \"slurm_jobs\": {ID or NAME: job file}), a plan file, or a folder of "
         "plan files (docs/model.md, \"Jobs beside each other\")")
      ->required();
  app.add_option("--alignment", o->alignment,
                 "which step --json's step_s and slowdown give: average (phases unaligned, default) or worst (every "
                 "job at its busiest phase at once); both are always listed")
      ->check(CLI::IsMember({"average", "worst"}));
  app.add_option("--links", o->links, "how many of the links where jobs meet to list (default 10)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--calibration", o->calibration, "overlay of effective link bandwidths (JSON)");
  app.add_option("--html", o->html,
                 "write a self-contained HTML report: the fabric coloured by every job's load together, hosts in "
                 "their job's colour, a job's links lit when picked, this text");
  app.add_flag("--json", o->json, "machine-readable output: every job and every loaded link");
  return [o](std::ostream& out, std::ostream& err) { return run(*o, out, err); };
}

}  // namespace

Tool contention_tool() {
  return {"contention", "the running jobs on a cluster: who slows whom, on which links", setup};
}

}  // namespace topoplan::cli

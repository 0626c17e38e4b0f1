// topoplan compare: topoplan-validate's measurements beside the model's prediction for the same
// plan (validate/compare.h). Exit 0 when the values were right and no group is slower than
// predicted by more than the threshold (a host-memory run is not timed against the GPU model), 1
// when one is or a value was wrong, 2 on bad input.
#include <memory>
#include <ostream>

#include "base/json_fields.h"
#include "cli/model_flags.h"
#include "cli/tool.h"
#include "validate/compare.h"
#include "validate/compare_json.h"
#include "validate/compare_text.h"

namespace topoplan::cli {
namespace {

struct Options {
  std::string plan, measured, cluster;
  double threshold = 0.25;
  ModelSources model;
  bool json = false;
};

int run(const Options& o, std::ostream& out, std::ostream& err) {
  Result<std::unique_ptr<JobInputs>> in = job_inputs_from_plan(o.plan, o.cluster, o.model);
  if (!in) return fail(err, in.error());
  Result<Measured> measured = measured_read(o.measured);
  if (!measured) return fail(err, measured.error());
  const JobInputs& i = **in;
  Result<Comparison> cmp =
      compare_measured(i.cluster, *i.router, i.job, i.layout, i.model.options, *measured, o.threshold);
  if (!cmp) return fail(err, cmp.error());
  if (o.json)
    out << comparison_to_json(i.cluster, o.plan, o.measured, *measured, *cmp).dump(2) << "\n";
  else
    out << comparison_text(i.cluster, o.plan, o.measured, *measured, *cmp);
  return cmp->slow || cmp->wrong ? kExitCheckFailed : kExitOk;
}

Run setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--plan", o->plan, "the plan file the run checked (plan.json)")->required();
  app.add_option("--measured", o->measured, "topoplan-validate's results (its --json file)")->required();
  app.add_option("--cluster", o->cluster, "the cluster (default: the one the plan names)");
  app.add_option("--threshold", o->threshold, "flag groups slower than predicted by more than this fraction")
      ->check(CLI::Range(0.0, 100.0));
  model_flags_add(app, o->model);
  app.add_flag("--json", o->json, "machine-readable output");
  return [o](std::ostream& out, std::ostream& err) { return run(*o, out, err); };
}

}  // namespace

Tool compare_tool() {
  return {"compare", "topoplan-validate's measurements beside the model's prediction for the plan", setup};
}

}  // namespace topoplan::cli

// topoplan calibrate: fits the model's link efficiencies and per-call latencies to measurements
// (topoplan-validate's results on their plan, or nccl-tests logs on a cluster), or its compute
// efficiency to a training run's log (validate/calibrate_training.h), and writes the overlay
// `--calibration` applies (validate/calibrate.h). With --hold-out, the sizes left out are
// predicted with the result: exit 1 when a size's median error passes --tolerance.
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#include "base/file_io.h"
#include "cli/tool.h"
#include "validate/calibrate_from.h"
#include "validate/calibrate_json.h"
#include "validate/calibrate_text.h"
#include "validate/calibrate_training.h"

namespace topoplan::cli {
namespace {

struct Options {
  CalibrateOptions calibrate;
  TrainingCalibrateOptions training;
  std::string output;
  bool json = false;
};

int run_training(const Options& o, std::ostream& out, std::ostream& err) {
  if (!o.calibrate.measured.empty() || !o.calibrate.logs.empty())
    return fail(err, "--training-log fits compute from a training run; --measured and --nccl-tests fit the network: "
                     "give one of them");
  TrainingCalibrateOptions t = o.training;
  t.cluster = o.calibrate.cluster;
  t.base = o.calibrate.base;
  Result<TrainingCalibration> fitted = calibrate_training(t);
  if (!fitted) return fail(err, fitted.error());
  if (!o.output.empty()) {
    if (Result<void> w = text_write_file(o.output, calibration_to_json(fitted->fit.calibration).dump(2) + "\n"); !w)
      return fail(err, w.error());
  }
  if (o.json)
    out << training_calibration_json(*fitted, o.output).dump(2) << "\n";
  else
    out << training_calibration_text(*fitted, o.output);
  return kExitOk;
}

int run(const Options& o, std::ostream& out, std::ostream& err) {
  if (!o.training.logs.empty()) return run_training(o, out, err);
  if (!o.training.job.empty() || !o.training.layout.empty())
    return fail(err, "--job and --layout describe a training run: they go with --training-log");
  Result<CalibrationRun> fitted = calibrate_from(o.calibrate);
  if (!fitted) return fail(err, fitted.error());
  if (!o.output.empty()) {
    if (Result<void> w = text_write_file(o.output, calibration_to_json(fitted->fit.calibration).dump(2) + "\n"); !w)
      return fail(err, w.error());
  }
  if (o.json)
    out << calibration_fit_to_json(fitted->sources, fitted->series, fitted->fit, fitted->held, o.calibrate.tolerance,
                                   fitted->failed, o.output)
               .dump(2)
        << "\n";
  else
    out << calibration_run_text(o.calibrate, *fitted, o.output);
  return fitted->failed ? kExitCheckFailed : kExitOk;
}

Run setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CalibrateOptions& c = o->calibrate;
  app.add_option("--measured", c.measured, "topoplan-validate's results (its --json file), best from a --sizes sweep");
  app.add_option("--plan", c.plan, "the plan the results ran (default: the one they name)");
  app.add_option("--nccl-tests", c.logs, "nccl-tests output logs (any collective, several files)");
  app.add_option("--cluster", c.cluster, "the cluster (nccl-tests logs: required; results: default the plan's)");
  TrainingCalibrateOptions& t = o->training;
  app.add_option("--training-log", t.logs,
                 "a training run's log (Megatron-LM, NeMo or torchtitan iteration lines; several files): fit the "
                 "compute model to its step time, and with Megatron's timers the DP link to its logged DP sync");
  app.add_option("--job", t.job, "the run's job (with --training-log)");
  app.add_option("--layout", t.layout, "the run's layout (with --training-log; default: the default layout)");
  app.add_option("--skip", t.skip, "each log's first iterations left out, start-up in them (default 1)")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--nodes", c.nodes, "the cluster hosts of the logs' hosts, in order of first appearance (h[001-002])");
  app.add_option("--hold-out", c.hold_out, "sizes left out of the fit and predicted instead, e.g. 64KiB,4MiB");
  app.add_option("--tolerance", c.tolerance, "largest median error at a held-out size before exit 1 (0.3 = 30%)")
      ->check(CLI::Range(0.0, 100.0));
  app.add_option("--calibration", c.base, "the overlay to start from (default: topoplan's defaults)");
  app.add_option("-o,--output", o->output, "write the fitted overlay here (JSON, for --calibration)");
  app.add_flag("--json", o->json, "machine-readable output");
  return [o](std::ostream& out, std::ostream& err) { return run(*o, out, err); };
}

}  // namespace

Tool calibrate_tool() {
  return {"calibrate",
          "fit link efficiencies and latencies to measurements, or compute to a training log; write a --calibration "
          "overlay",
          setup};
}

}  // namespace topoplan::cli

#include "validate/calibrate_from.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "base/hostlist.h"
#include "planner/job_inputs.h"
#include "topology/load.h"
#include "validate/compare.h"
#include "validate/nccl_tests_format.h"
#include "validate/plan_file.h"

namespace topoplan {

Result<CalibrationRun> calibrate_from(const CalibrateOptions& o) {
  if (o.measured.empty() == o.logs.empty()) return Error{"give either --measured RESULTS.json or --nccl-tests LOG..."};
  std::vector<double> hold_out;
  if (!o.hold_out.empty()) {
    Result<std::vector<double>> h = validate_sizes_parse(o.hold_out);
    if (!h) return Error{"--hold-out: " + h.error()};
    hold_out = *h;
  }
  Result<Calibration> base = calibration_load_or_default(o.base);
  RETURN_IF_ERROR(base);
  CalibrationRun run;
  run.sources = o.measured.empty() ? o.logs : std::vector<std::string>{o.measured};
  Result<CalibrationFit> fit = Error{""};
  if (!o.measured.empty()) {
    Result<Measured> m = measured_read(o.measured);
    RETURN_IF_ERROR(m);
    const std::string plan = o.plan.empty() ? m->plan : o.plan;
    if (plan.empty()) return Error{o.measured + ": plan: the results do not name their plan; give --plan"};
    Result<std::unique_ptr<JobInputs>> in = job_inputs_from_plan(plan, o.cluster, {});
    RETURN_IF_ERROR(in);
    if (m->world != (*in)->layout.world_size())
      return Error{o.measured + ": " + std::to_string(m->world) + " ranks, " + plan + " places " +
                   std::to_string((*in)->layout.world_size())};
    run.series = calibration_series(*m, (*in)->cluster, (*in)->layout);
    fit = calibrate((*in)->cluster, *(*in)->router, nccl_tuning_default(), *base, run.series, hold_out);
  } else {
    if (o.cluster.empty()) return Error{"--nccl-tests: give --cluster, the cluster the logs ran on"};
    Result<Cluster> c = cluster_load(o.cluster);
    RETURN_IF_ERROR(c);
    std::vector<std::string> nodes;
    if (!o.nodes.empty()) {
      Result<std::vector<std::string>> n = hostlist_expand(o.nodes);
      if (!n) return Error{"--nodes: " + n.error()};
      nodes = *n;
    }
    for (const std::string& path : o.logs) {
      Result<NcclTestsLog> log = nccl_tests_log_read(path);
      RETURN_IF_ERROR(log);
      for (const NcclTestsRun& r : log->runs) {
        Result<CalibrationSeries> s = calibration_series(r, *c, nodes);
        RETURN_IF_ERROR(s);
        run.series.push_back(std::move(*s));
      }
    }
    Router router(*c);
    fit = calibrate(*c, router, nccl_tuning_default(), *base, run.series, hold_out);
  }
  RETURN_IF_ERROR(fit);
  run.fit = std::move(*fit);
  run.fit.calibration.source = "topoplan calibrate from " + run.sources.front();
  run.held = held_out_sizes(run.fit);
  run.failed = std::any_of(run.held.begin(), run.held.end(),
                           [&](const HeldSize& h) { return std::abs(h.median_error) > o.tolerance; });
  return run;
}

}  // namespace topoplan

// topoplan calibrate: fits the model's link efficiencies and per-call latencies to measurements
// (topoplan-validate's results on their plan, or nccl-tests logs on a cluster) and writes the
// overlay `--calibration` applies (validate/calibrate.h). With --hold-out, the sizes left out are
// predicted with the result: exit 1 when a size's median error passes --tolerance.
#include <algorithm>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#include "base/hostlist.h"
#include "base/json_fields.h"
#include "base/text_table.h"
#include "base/units.h"
#include "cli/tool.h"
#include "planner/job_inputs.h"
#include "topology/load.h"
#include "validate/calibrate.h"
#include "validate/calibrate_json.h"
#include "validate/compare.h"
#include "validate/nccl_tests_format.h"
#include "validate/plan_file.h"

namespace topoplan::cli {
namespace {

struct Options {
  std::string measured, plan, cluster, nodes, hold_out, base, output;
  std::vector<std::string> logs;
  double tolerance = 0.3;
  bool json = false;
};

std::string percent(double fraction) { return (fraction > 0 ? "+" : "") + format_number(100 * fraction, 1) + "%"; }

void print_text(std::ostream& out, const Options& o, const std::vector<CalibrationSeries>& series,
                const CalibrationFit& fit, const std::vector<HeldSize>& held, bool failed) {
  size_t used = 0;
  for (const SeriesFit& s : fit.series) used += s.cls.has_value();
  const std::string logs =
      std::to_string(o.logs.size()) + (o.logs.size() == 1 ? " nccl-tests log" : " nccl-tests logs");
  out << "calibrated from " << (o.measured.empty() ? logs : o.measured) << ": " << series.size() << " series, " << used
      << " fitted, " << fit.iterations << (fit.iterations == 1 ? " round" : " rounds") << "\n\n";
  using A = TextTable::Align;
  TextTable classes({A::left, A::right, A::right, A::right, A::right, A::right, A::right});
  classes.add({"class", "series", "line rate", "efficiency", "effective", "latency per call", "measured α, β"}, "  ");
  for (const ClassFit& c : fit.classes)
    classes.add({calibration_class_name(c.cls), std::to_string(c.series), format_number(c.line_GBps, 1) + " GB/s",
                 format_number(c.efficiency_before, 3) + " -> " + format_number(c.efficiency_after, 4) +
                     (c.clamped ? " (limit)" : ""),
                 format_number(c.line_GBps * c.efficiency_after, 2) + " GB/s", format_duration(c.latency_us * 1e-6),
                 format_duration(c.alpha_us * 1e-6) + ", " + format_number(c.beta_GBps, 2) + " GB/s"},
                "  ");
  out << classes.str() << "\n";
  TextTable t({A::left, A::left, A::left, A::right, A::right, A::right, A::right});
  t.add({"series", "class", "algorithm", "α measured", "α model", "β measured", "β model"}, "  ");
  for (const SeriesFit& s : fit.series) {
    const std::string& label = series[s.series].label;
    if (!s.cls) {
      t.add({label, "-", "-", "not fitted: " + s.why_not, "", "", ""}, "  ");
      continue;
    }
    t.add({label, calibration_class_name(*s.cls), s.algorithm + (s.channel_bound ? " (channel cap)" : ""),
           format_duration(s.measured.alpha_us * 1e-6), format_duration(s.after.alpha_us * 1e-6),
           format_number(s.measured.beta_GBps, 2) + " GB/s", format_number(s.after.beta_GBps, 2) + " GB/s"},
          "  ");
  }
  out << "fits of time = α + size / β, measured and by the calibrated model:\n" << t.str();
  if (!held.empty()) {
    out << "\nheld out (predicted with the result; error = predicted / measured - 1):\n";
    TextTable h({A::right, A::right, A::right});
    h.add({"size", "series", "median error"}, "  ");
    std::vector<double> sizes;
    for (const HeldSize& s : held) sizes.push_back(s.bytes);
    const SizeUnits units = size_units_of(sizes);
    for (const HeldSize& s : held)
      h.add({format_bytes(s.bytes, units), std::to_string(s.series), percent(s.median_error)}, "  ");
    out << h.str() << (failed ? "FAILED" : "OK") << ": tolerance " << format_number(100 * o.tolerance, 0) << "%\n";
  }
  for (const std::string& n : fit.notes) out << "note: " << n << "\n";
  if (o.output.empty())
    out << "\nnot written: give -o FILE to write the overlay\n";
  else
    out << "\nwrote " << o.output << ": apply it with --calibration " << o.output << "\n";
}

int run(const Options& o, std::ostream& out, std::ostream& err) {
  if (o.measured.empty() == o.logs.empty())
    return fail(err, "give either --measured RESULTS.json or --nccl-tests LOG...");
  std::vector<double> hold_out;
  if (!o.hold_out.empty()) {
    Result<std::vector<double>> h = validate_sizes_parse(o.hold_out);
    if (!h) return fail(err, "--hold-out: " + h.error());
    hold_out = *h;
  }
  Result<Calibration> base = calibration_load_or_default(o.base);
  if (!base) return fail(err, base.error());
  std::vector<CalibrationSeries> series;
  Result<CalibrationFit> fit = Error{""};
  if (!o.measured.empty()) {
    Result<Measured> m = measured_read(o.measured);
    if (!m) return fail(err, m.error());
    const std::string plan = o.plan.empty() ? m->plan : o.plan;
    if (plan.empty()) return fail(err, o.measured + ": plan: the results do not name their plan; give --plan");
    Result<std::unique_ptr<JobInputs>> in = job_inputs_from_plan(plan, o.cluster, {});
    if (!in) return fail(err, in.error());
    if (m->world != (*in)->layout.world_size())
      return fail(err, o.measured + ": " + std::to_string(m->world) + " ranks, " + plan + " places " +
                           std::to_string((*in)->layout.world_size()));
    series = calibration_series(*m, (*in)->cluster, (*in)->layout);
    fit = calibrate((*in)->cluster, *(*in)->router, nccl_tuning_default(), *base, series, hold_out);
  } else {
    if (o.cluster.empty()) return fail(err, "--nccl-tests: give --cluster, the cluster the logs ran on");
    Result<Cluster> c = cluster_load(o.cluster);
    if (!c) return fail(err, c.error());
    std::vector<std::string> nodes;
    if (!o.nodes.empty()) {
      Result<std::vector<std::string>> n = hostlist_expand(o.nodes);
      if (!n) return fail(err, "--nodes: " + n.error());
      nodes = *n;
    }
    for (const std::string& path : o.logs) {
      Result<NcclTestsLog> log = nccl_tests_log_read(path);
      if (!log) return fail(err, log.error());
      for (const NcclTestsRun& r : log->runs) {
        Result<CalibrationSeries> s = calibration_series(r, *c, nodes);
        if (!s) return fail(err, s.error());
        series.push_back(std::move(*s));
      }
    }
    Router router(*c);
    fit = calibrate(*c, router, nccl_tuning_default(), *base, series, hold_out);
  }
  if (!fit) return fail(err, fit.error());
  fit->calibration.source = "topoplan calibrate from " + (o.measured.empty() ? o.logs.front() : o.measured);
  if (!o.output.empty()) {
    if (Result<void> w = text_write_file(o.output, calibration_to_json(fit->calibration).dump(2) + "\n"); !w)
      return fail(err, w.error());
  }
  const std::vector<HeldSize> held = held_out_sizes(*fit);
  const bool failed =
      std::any_of(held.begin(), held.end(), [&](const HeldSize& h) { return std::abs(h.median_error) > o.tolerance; });
  if (o.json)
    out << calibration_fit_to_json(o.measured.empty() ? o.logs : std::vector<std::string>{o.measured}, series, *fit,
                                   held, o.tolerance, failed, o.output)
               .dump(2)
        << "\n";
  else
    print_text(out, o, series, *fit, held, failed);
  return failed ? kExitCheckFailed : kExitOk;
}

Run setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--measured", o->measured, "topoplan-validate's results (its --json file), best from a --sizes sweep");
  app.add_option("--plan", o->plan, "the plan the results ran (default: the one they name)");
  app.add_option("--nccl-tests", o->logs, "nccl-tests output logs (any collective, several files)");
  app.add_option("--cluster", o->cluster, "the cluster (nccl-tests logs: required; results: default the plan's)");
  app.add_option("--nodes", o->nodes,
                 "the cluster hosts of the logs' hosts, in order of first appearance (h[001-002])");
  app.add_option("--hold-out", o->hold_out, "sizes left out of the fit and predicted instead, e.g. 64KiB,4MiB");
  app.add_option("--tolerance", o->tolerance, "largest median error at a held-out size before exit 1 (0.3 = 30%)")
      ->check(CLI::Range(0.0, 100.0));
  app.add_option("--calibration", o->base, "the overlay to start from (default: topoplan's defaults)");
  app.add_option("-o,--output", o->output, "write the fitted overlay here (JSON, for --calibration)");
  app.add_flag("--json", o->json, "machine-readable output");
  return [o](std::ostream& out, std::ostream& err) { return run(*o, out, err); };
}

}  // namespace

Tool calibrate_tool() {
  return {"calibrate", "fit link efficiencies and latencies to measurements; write a --calibration overlay", setup};
}

}  // namespace topoplan::cli

// topoplan observe: the fabric's port counters beside the load the model predicts for a job, link
// by link, with what stands out and the groups that use each flagged link
// (observe/link_compare.h, docs/observe.md).
#include <memory>
#include <optional>
#include <ostream>

#include "base/units.h"
#include "cli/dot_flags.h"
#include "cli/model_flags.h"
#include "cli/tool.h"
#include "observe/counters.h"
#include "observe/observe_job.h"
#include "observe/observe_job_json.h"
#include "observe/observe_job_text.h"
#include "observe/observed_dot_load.h"
#include "observe/port_match_load.h"
#include "planner/html_report.h"

namespace topoplan::cli {
namespace {

struct Options {
  std::string cluster, job, layout, port_map, step, interval, html;
  std::vector<std::string> counters;
  ModelSources model;
  DotFlags dot;
  double tolerance = 2;
  bool json = false;
};

// Seconds (a bare number) or a duration with its unit; parse_duration_s refuses 0 and below.
Result<double> seconds_arg(const std::string& flag, const std::string& text) {
  const bool bare = !text.empty() && text.find_first_not_of("0123456789.") == std::string::npos;
  Result<double> d = parse_duration_s(bare ? text + "s" : text);
  if (!d) return Error{flag + ": " + d.error()};
  return d;
}

int run(const Options& o, std::ostream& out, std::ostream& err) {
  Result<DotHosts> dot_hosts = dot_hosts_parse(o.dot.hosts);
  if (!dot_hosts) return fail(err, dot_hosts.error());
  if (o.counters.empty()) return fail(err, "--counters: give the counter files (two samples, or a CSV of windows)");
  if (!(o.tolerance > 1 && o.tolerance <= 1000))
    return fail(
        err, "--tolerance: expected a factor above 1 (2: flag links at over twice or under half the prediction), got " +
                 format_exact(o.tolerance));
  std::optional<double> interval_s, step_s;
  if (!o.interval.empty()) {
    Result<double> d = seconds_arg("--interval", o.interval);
    if (!d) return fail(err, d.error());
    interval_s = *d;
  }
  if (!o.step.empty()) {
    Result<double> d = seconds_arg("--step-s", o.step);
    if (!d) return fail(err, d.error());
    step_s = *d;
  }
  Result<std::unique_ptr<JobInputs>> in = job_inputs_load(o.cluster, o.job, o.layout, o.model);
  if (!in) return fail(err, in.error());
  const Cluster& c = (*in)->cluster;

  Result<PortMatch> match = port_match_load(c, o.counters, interval_s, o.port_map);
  if (!match) return fail(err, match.error());
  Result<ObserveJob> r = observe_job(**in, std::move(*match), {step_s, o.tolerance});
  if (!r) return fail(err, o.job + ": " + r.error());
  const JobScore& score = r->score;
  const std::vector<double> ratios = observed_ratios(c, r->rows);
  if (!o.dot.file.empty())
    if (Result<void> ok = dot_write(o.dot.file, c, observed_dot_load(score, ratios), *dot_hosts); !ok)
      return fail(err, ok.error());
  const int code = r->flagged() ? kExitCheckFailed : kExitOk;

  // The text once: printed, and the page's with --html.
  const std::string text = observe_job_text(c, o.cluster, *r, o.counters.size());
  if (!o.html.empty()) {
    ReportPart part{"layout " + score.layout, &(*in)->job, &score, nullptr, &ratios};
    if (Result<void> ok =
            html_report_write(o.html, c, {part}, score.job + " on " + o.cluster + ": observed / predicted", text);
        !ok)
      return fail(err, ok.error());
  }
  out << (o.json ? observe_job_to_json(c, *r, o.counters).dump(2) + "\n" : text);
  return code;
}

Run setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--cluster", o->cluster, "preset spec (dgx-h100:16) or cluster file")->required();
  app.add_option("--job", o->job, kJobHelp)->required();
  app.add_option("--layout", o->layout, std::string(kLayoutHelp) + "; default: host-major");
  app.add_option("--counters", o->counters, "port counter files: " + counter_formats_help() + " (docs/observe.md)")
      ->required();
  app.add_option("--port-map", o->port_map,
                 "CSV 'counter,port': the cluster's port for each counter key whose names differ");
  app.add_option("--interval", o->interval, "time between the two samples when the files carry no times: 60s, 5min");
  app.add_option("--step-s", o->step, "the job's measured step time (default: the model's): 12.6s, 900ms");
  app.add_option("--tolerance", o->tolerance,
                 "flag links above this factor of the prediction, or below its inverse (default 2)");
  model_flags_add(app, o->model);
  dot_flags_add(app, o->dot, "write the links with counters, coloured by observed / predicted (Graphviz)");
  app.add_option("--html", o->html,
                 "write a self-contained HTML report: the fabric coloured by observed / predicted, this text");
  app.add_flag("--json", o->json, "machine-readable output");
  return [o](std::ostream& out, std::ostream& err) { return run(*o, out, err); };
}

}  // namespace

Tool observe_tool() {
  return {"observe", "port counters beside a job's predicted link load: what stands out, and who uses it", setup};
}

}  // namespace topoplan::cli

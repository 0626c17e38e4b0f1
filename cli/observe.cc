// topoplan observe: the fabric's port counters beside the load the model predicts for a job, link
// by link, with what stands out and the groups that use each flagged link
// (observe/link_compare.h, docs/observe.md).
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>

#include "base/text_table.h"
#include "base/units.h"
#include "cli/dot_flags.h"
#include "cli/html_report.h"
#include "cli/model_flags.h"
#include "cli/tool.h"
#include "observe/counters.h"
#include "observe/observe_job.h"
#include "observe/observe_job_json.h"

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

std::string optional_count(const std::optional<double>& x) { return x ? format_number(*x, 0) : "-"; }

std::string rate_text(const std::optional<double>& GBps) { return GBps ? format_rate_gbit(*GBps) : "-"; }

std::string verdicts_text(const LinkObservation& o) {
  std::string s;
  for (LinkVerdict v : o.verdicts) s += (s.empty() ? "" : ", ") + std::string(to_string(v));
  return s.empty() ? "ok" : s;
}

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

  std::vector<CounterSample> samples;
  for (const std::string& path : o.counters) {
    Result<CounterSample> s = counters_load(path);
    if (!s) return fail(err, s.error());
    samples.push_back(std::move(*s));
  }
  Result<std::vector<PortRate>> rates = counter_rates(samples, interval_s);
  if (!rates) return fail(err, rates.error());
  PortMapping mapping;
  if (!o.port_map.empty()) {
    Result<PortMapping> m = port_mapping_load(o.port_map, c);
    if (!m) return fail(err, m.error());
    mapping = std::move(*m);
  }
  Result<PortMatch> match = port_match(c, std::move(*rates), o.port_map.empty() ? nullptr : &mapping);
  if (!match) return fail(err, match.error());
  Result<ObserveJob> r = observe_job(**in, std::move(*match), {step_s, o.tolerance});
  if (!r) return fail(err, o.job + ": " + r.error());
  const JobScore& score = r->score;
  const std::vector<double> ratios = observed_ratios(c, r->rows);
  if (!o.dot.file.empty()) {
    DotLoad load;
    load.utilization = ratios;
    load.ratio = true;
    load.title = score.job + ": observed / predicted per link (x1 = as predicted; each edge its largest, down / up)";
    if (Result<void> ok = dot_write(o.dot.file, c, load, *dot_hosts); !ok) return fail(err, ok.error());
  }
  const int code = r->flagged() ? kExitCheckFailed : kExitOk;

  // The text once: printed, and the page's with --html.
  std::ostringstream text;
  text << score.job << " on " << o.cluster << ", layout " << score.layout << ": step "
       << format_duration(r->options.step_s)
       << (step_s ? " (measured; the model's " + format_duration(r->options.model_step_s) + ")"
                  : " (the model's; --step-s for the measured one)")
       << "\n"
       << r->ports << " port" << (r->ports == 1 ? "" : "s") << " from " << o.counters.size() << " file"
       << (o.counters.size() == 1 ? "" : "s") << ", predicted = the job's bytes per step / step; "
       << "flagged beyond " << format_number(o.tolerance, 2) << "x either way\n\n";
  using A = TextTable::Align;
  TextTable t({A::left, A::left, A::right, A::right, A::right, A::right, A::right, A::right, A::right, A::left});
  t.add({"link", "counter", "observed", "predicted", "ratio", "job peak", "discards", "wait", "pause", "verdict"},
        "  ");
  for (const LinkObservation& row : r->rows)
    t.add({c.edge_name(row.edge), row.counter + (row.transmit ? " tx" : " rx"), rate_text(row.observed_GBps),
           format_rate_gbit(row.predicted_GBps),
           row.ratio() ? format_number(*row.ratio(), *row.ratio() < 0.1 ? 4 : 2) + "x" : "-",
           row.predicted_peak_GBps > 0
               ? format_rate_gbit(row.predicted_peak_GBps) + " " + std::string(phase_window_name(row.peak_phase))
               : "-",
           optional_count(row.discards), optional_count(row.wait), optional_count(row.pause), verdicts_text(row)},
          "  ");
  text << t.str();
  bool any = false;
  for (const LinkObservation& row : r->rows) {
    if (row.verdicts.empty()) continue;
    if (!any) text << "\nflagged:\n";
    any = true;
    for (LinkVerdict v : row.verdicts)
      text << "  [" << to_string(v) << "] " << c.edge_name(row.edge) << " (" << row.counter
           << "): " << verdict_meaning(v) << "\n";
    const std::vector<LinkUser>& on = r->users_of(row.edge);
    if (on.empty()) text << "    the job's groups: none\n";
    for (size_t k = 0; k < on.size() && k < 8; ++k) text << "    " << link_user_text(*r->state, on[k]) << "\n";
    if (on.size() > 8) text << "    and " << on.size() - 8 << " more groups\n";
  }
  for (const LinkObservation& row : r->rows)
    for (const std::string& f : row.counter_flags) text << "  note: " << row.counter << ": " << f << "\n";
  if (!r->unmatched.empty()) {
    text << "\ncounters that name no link of the cluster (--port-map maps them):\n";
    for (const UnmatchedCounter& u : r->unmatched) text << "  " << u.where << ": " << u.reason << "\n";
  }
  text << "\n" << kObserveCorrelation << "\n";
  if (!o.html.empty()) {
    ReportPart part{"layout " + score.layout, &(*in)->job, &score, nullptr, &ratios};
    if (Result<void> ok =
            html_report_write(o.html, c, {part}, score.job + " on " + o.cluster + ": observed / predicted", text.str());
        !ok)
      return fail(err, ok.error());
  }
  out << (o.json ? observe_job_to_json(c, *r, o.counters).dump(2) + "\n" : text.str());
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

// topoplan observe: the fabric's port counters beside the load the model predicts for a job, link
// by link, with what stands out and the groups that use each flagged link
// (observe/link_compare.h, docs/observe.md).
#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>

#include "cli/dot_flags.h"
#include "cli/html_report.h"
#include "cli/model_flags.h"
#include "cli/text_table.h"
#include "cli/tool.h"
#include "observe/link_compare.h"
#include "planner/group_ref.h"
#include "planner/link_use.h"
#include "base/units.h"

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

constexpr const char* kCorrelation =
    "Counters beside a prediction show where the job's traffic and the fabric's disagree, not why: a flagged "
    "link is a place to look, and the groups named are the ones the model puts there.";

// A counter that names no link of the cluster: shown, never dropped.
struct Unmatched {
  std::string counter, where, reason;
};

// "dp:3 reduce_scatter (dense gradients, per bucket)": explain --group takes the first word.
std::string user_text(const ScoreState& st, const LinkUser& u) {
  const TrafficItem& it = st.traffic().items[u.item];
  return group_ref_text(it.group, u.list_index) + " " + std::string(to_string(it.op)) + " (" + it.what + ")";
}

std::string optional_count(const std::optional<double>& x) { return x ? format_number(*x, 0) : "-"; }

std::string rate_text(const std::optional<double>& GBps) { return GBps ? format_rate_gbit(*GBps) : "-"; }

std::string verdicts_text(const LinkObservation& o) {
  std::string s;
  for (LinkVerdict v : o.verdicts) s += (s.empty() ? "" : ", ") + std::string(to_string(v));
  return s.empty() ? "ok" : s;
}

// Each observed direction as observed / predicted per edge, for the drawing and the page; a busy
// link the job leaves idle as kDotBusyUnpredicted, 0 where no counter measured it.
std::vector<double> observed_ratios(const Cluster& c, const std::vector<LinkObservation>& rows) {
  std::vector<double> out(c.num_edges(), 0);
  for (const LinkObservation& r : rows) {
    double v = 0;
    if (std::optional<double> ratio = r.ratio())
      v = *ratio;
    else if (r.observed_GBps && *r.observed_GBps > 0 && r.predicted_GBps <= 0)
      v = kDotBusyUnpredicted;
    out[r.edge] = std::max(out[r.edge], v);
  }
  return out;
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
    return fail(err, "--tolerance: expected a factor above 1 (2: flag links at over twice or under half the prediction), got " +
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
  const JobInputs& i = **in;
  const Cluster& c = i.cluster;

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
  std::vector<PortRate> matched;
  std::vector<PortLink> ports;
  std::vector<Unmatched> unmatched;
  for (PortRate& r : *rates) {
    Result<PortLink> p = port_find(c, r.key, o.port_map.empty() ? nullptr : &mapping);
    if (!p) {
      unmatched.push_back({r.key, r.where, p.error()});
      continue;
    }
    ports.push_back(*p);
    matched.push_back(std::move(r));
  }
  if (matched.empty())
    return fail(err, "no counter names a link of the cluster (first: " + unmatched.front().reason +
                         "); map counters to ports with --port-map (docs/observe.md)");

  const ScoreOptions& options = i.model.options;
  Result<std::unique_ptr<ScoreState>> state = ScoreState::make(c, *i.router, i.job, i.layout, options);
  if (!state) return fail(err, o.job + ": " + state.error());
  Result<JobScore> score = score_report(c, *i.router, i.job, **state, options);
  if (!score) return fail(err, o.job + ": " + score.error());
  ObserveOptions opt;
  opt.model_step_s = score->step_s;
  opt.step_s = step_s.value_or(score->step_s);
  opt.tolerance = o.tolerance;
  const std::vector<LinkObservation> rows =
      observe_links(c, matched, ports, link_phase_bytes(**state), phase_durations_us(**state), opt);
  const std::vector<double> ratios = observed_ratios(c, rows);
  if (!o.dot.file.empty()) {
    DotLoad load;
    load.utilization = ratios;
    load.ratio = true;
    load.title = score->job + ": observed / predicted per link (x1 = as predicted; each edge its largest, down / up)";
    if (Result<bool> ok = dot_write(o.dot.file, c, load, *dot_hosts); !ok) return fail(err, ok.error());
  }
  bool flagged = !unmatched.empty();
  std::vector<EdgeId> flagged_edges;
  for (const LinkObservation& r : rows)
    if (!r.verdicts.empty()) flagged_edges.push_back(r.edge);
  flagged = flagged || !flagged_edges.empty();
  const std::unordered_map<EdgeId, std::vector<LinkUser>> users_of = link_users(**state, *i.router, flagged_edges);
  const std::vector<LinkUser> none;
  auto users = [&users_of, &none](EdgeId e) -> const std::vector<LinkUser>& {
    auto it = users_of.find(e);
    return it == users_of.end() ? none : it->second;
  };

  // The text once: printed, and the page's with --html.
  std::ostringstream text;
  text << score->job << " on " << o.cluster << ", layout " << score->layout << ": step " << format_duration(opt.step_s)
       << (step_s ? " (measured; the model's " + format_duration(opt.model_step_s) + ")" : " (the model's; --step-s for the measured one)")
       << "\n" << matched.size() << " port" << (matched.size() == 1 ? "" : "s") << " from " << o.counters.size()
       << " file" << (o.counters.size() == 1 ? "" : "s") << ", predicted = the job's bytes per step / step; "
       << "flagged beyond " << format_number(o.tolerance, 2) << "x either way\n\n";
  using A = TextTable::Align;
  TextTable t({A::left, A::left, A::right, A::right, A::right, A::right, A::right, A::right, A::right, A::left});
  t.add({"link", "counter", "observed", "predicted", "ratio", "job peak", "discards", "wait", "pause", "verdict"}, "  ");
  for (const LinkObservation& r : rows)
    t.add({c.edge_name(r.edge), r.counter + (r.transmit ? " tx" : " rx"), rate_text(r.observed_GBps),
           format_rate_gbit(r.predicted_GBps), r.ratio() ? format_number(*r.ratio(), *r.ratio() < 0.1 ? 4 : 2) + "x" : "-",
           r.predicted_peak_GBps > 0 ? format_rate_gbit(r.predicted_peak_GBps) + " " + std::string(phase_window_name(r.peak_phase)) : "-",
           optional_count(r.discards), optional_count(r.wait), optional_count(r.pause), verdicts_text(r)},
          "  ");
  text << t.str();
  bool any = false;
  for (const LinkObservation& r : rows) {
    if (r.verdicts.empty()) continue;
    if (!any) text << "\nflagged:\n";
    any = true;
    for (LinkVerdict v : r.verdicts)
      text << "  [" << to_string(v) << "] " << c.edge_name(r.edge) << " (" << r.counter << "): " << verdict_meaning(v) << "\n";
    const std::vector<LinkUser>& on = users(r.edge);
    if (on.empty()) text << "    the job's groups: none\n";
    for (size_t k = 0; k < on.size() && k < 8; ++k) text << "    " << user_text(**state, on[k]) << "\n";
    if (on.size() > 8) text << "    and " << on.size() - 8 << " more groups\n";
  }
  for (const LinkObservation& r : rows)
    for (const std::string& f : r.counter_flags) text << "  note: " << r.counter << ": " << f << "\n";
  if (!unmatched.empty()) {
    text << "\ncounters that name no link of the cluster (--port-map maps them):\n";
    for (const Unmatched& u : unmatched) text << "  " << u.where << ": " << u.reason << "\n";
  }
  text << "\n" << kCorrelation << "\n";
  if (!o.html.empty()) {
    ReportPart part{"layout " + score->layout, &i.job, &*score, nullptr, &ratios};
    if (Result<bool> ok = html_report_write(o.html, c, {part}, score->job + " on " + o.cluster + ": observed / predicted", text.str());
        !ok)
      return fail(err, ok.error());
  }
  if (o.json) {
    nlohmann::json j = {{"job", score->job}, {"layout", score->layout}, {"step_s", opt.step_s},
                        {"model_step_s", opt.model_step_s}, {"step_measured", step_s.has_value()},
                        {"tolerance", o.tolerance}, {"note", kCorrelation}};
    j["counters"] = o.counters;
    j["links"] = nlohmann::json::array();
    auto opt_json = [](const std::optional<double>& x) { return x ? nlohmann::json(*x) : nlohmann::json(nullptr); };
    for (const LinkObservation& r : rows) {
      nlohmann::json groups = nlohmann::json::array();
      if (!r.verdicts.empty())
        for (const LinkUser& u : users(r.edge)) {
          const TrafficItem& it = (*state)->traffic().items[u.item];
          groups.push_back({{"group", group_kind_name(it.group)}, {"index", u.list_index},
                            {"op", std::string(to_string(it.op))}, {"what", it.what}});
        }
      nlohmann::json verdicts = nlohmann::json::array();
      for (LinkVerdict v : r.verdicts) verdicts.push_back(std::string(to_string(v)));
      const std::optional<double> observed_gbit_s = r.observed_GBps ? std::optional<double>(*r.observed_GBps * 8) : std::nullopt;
      j["links"].push_back({{"link", c.edge_name(r.edge)}, {"port", r.port}, {"counter", r.counter},
                            {"direction", r.transmit ? "tx" : "rx"}, {"where", r.where}, {"window_s", r.window_s},
                            {"capacity_gbit_s", r.capacity_GBps * 8}, {"observed_gbit_s", opt_json(observed_gbit_s)},
                            {"predicted_gbit_s", r.predicted_GBps * 8}, {"ratio", opt_json(r.ratio())},
                            {"predicted_peak_gbit_s", r.predicted_peak_GBps * 8},
                            {"peak_phase", r.predicted_peak_GBps > 0 ? nlohmann::json(std::string(phase_window_name(r.peak_phase))) : nlohmann::json(nullptr)},
                            {"discards", opt_json(r.discards)}, {"errors", opt_json(r.errors)}, {"wait", opt_json(r.wait)},
                            {"pause", opt_json(r.pause)}, {"ecn_marked", opt_json(r.ecn_marked)},
                            {"counter_flags", r.counter_flags}, {"verdicts", verdicts}, {"groups", groups}});
    }
    j["unmatched"] = nlohmann::json::array();
    for (const Unmatched& u : unmatched)
      j["unmatched"].push_back({{"counter", u.counter}, {"where", u.where}, {"reason", u.reason}});
    out << j.dump(2) << "\n";
    return flagged ? kExitCheckFailed : kExitOk;
  }
  out << text.str();
  return flagged ? kExitCheckFailed : kExitOk;
}

Run setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--cluster", o->cluster, "preset spec (dgx-h100:16) or cluster file")->required();
  app.add_option("--job", o->job, kJobHelp)->required();
  app.add_option("--layout", o->layout, std::string(kLayoutHelp) + "; default: host-major");
  app.add_option("--counters", o->counters,
                 "port counter files: perfquery output, Prometheus text (node_exporter), or CSV windows (docs/observe.md)")
      ->required();
  app.add_option("--port-map", o->port_map, "CSV 'counter,port': the cluster's port for each counter key whose names differ");
  app.add_option("--interval", o->interval, "time between the two samples when the files carry no times: 60s, 5min");
  app.add_option("--step-s", o->step, "the job's measured step time (default: the model's): 12.6s, 900ms");
  app.add_option("--tolerance", o->tolerance, "flag links above this factor of the prediction, or below its inverse (default 2)");
  model_flags_add(app, o->model);
  dot_flags_add(app, o->dot, "write the links with counters, coloured by observed / predicted (Graphviz)");
  app.add_option("--html", o->html, "write a self-contained HTML report: the fabric coloured by observed / predicted, this text");
  app.add_flag("--json", o->json, "machine-readable output");
  return [o](std::ostream& out, std::ostream& err) { return run(*o, out, err); };
}

}  // namespace

Tool observe_tool() { return {"observe", "port counters beside a job's predicted link load: what stands out, and who uses it", setup}; }

}  // namespace topoplan::cli

// topoplan review: a layout scored beside the planner's best on the same hosts, with a verdict and
// an exit code a scheduler can gate on (planner/review.h).
#include <charconv>
#include <cmath>
#include <iomanip>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>

#include "cli/html_report.h"
#include "cli/model_flags.h"
#include "cli/tool.h"
#include "planner/plan_json.h"
#include "planner/review.h"
#include "planner/score_json.h"
#include "base/hostlist.h"
#include "base/units.h"

namespace topoplan::cli {
namespace {

struct Options {
  std::string cluster, job, layout, max_exposed, html;
  std::optional<std::string> max_slowdown;  // none given keeps ReviewLimits' default
  ModelSources model;
  bool json = false;
};

std::string host_order(const Cluster& c, const std::vector<int>& hosts) {
  std::vector<std::string> names;
  for (int h : hosts) names.push_back(c.hosts()[static_cast<size_t>(h)].name);
  return hostlist_compress(names);
}

void print_text(std::ostream& out, const Cluster& c, const std::string& order, const Review& r) {
  const JobScore& a = r.score;
  const JobScore& b = r.best.score;
  out << r.verdict << "\n\n";
  auto row = [&](const std::string& name, const std::string& x, const std::string& y) {
    out << "  " << std::left << std::setw(10) << name << std::right << std::setw(18) << x << std::setw(18) << y << "\n";
  };
  row("", "this layout", "planner's best");
  row("order", order, r.best.job.parallel.order);
  row("exposed", format_duration(a.exposed_comm_s), format_duration(b.exposed_comm_s));
  for (int k = 0; k < kTrafficKinds; ++k) {
    const double x = a.by_kind[static_cast<size_t>(k)].exposed_s, y = b.by_kind[static_cast<size_t>(k)].exposed_s;
    if (x > 0 || y > 0) row("  " + std::string(to_string(static_cast<TrafficKind>(k))), format_duration(x), format_duration(y));
  }
  row("step", format_duration(a.step_s), format_duration(b.step_s));
  row("MFU", format_number(100 * a.mfu, 1) + "%", format_number(100 * b.mfu, 1) + "%");
  out << "\nfindings of this layout:\n" << findings_text(a.findings, a);
  out << "\nthe planner's best: order " << r.best.job.parallel.order << ", hosts in rank order "
      << host_order(c, r.best.host_order) << "\n";
}

int run(const Options& o, std::ostream& out, std::ostream& err) {
  ReviewLimits limits;
  if (!o.max_exposed.empty()) {
    Result<double> d = parse_duration_s(o.max_exposed);
    if (!d) return fail(err, "--max-exposed: " + d.error());
    limits.max_exposed_s = *d;
  }
  if (o.max_slowdown == "none") {
    limits.max_slowdown.reset();
  } else if (o.max_slowdown) {
    const std::string& text = *o.max_slowdown;
    double x = 0;
    const char* end = text.data() + text.size();
    if (std::from_chars(text.data(), end, x).ptr != end || !(x >= 1) || !std::isfinite(x))
      return fail(err, "--max-slowdown: expected a multiple of the planner's best of at least 1 (1.25: at most 25% more) "
                       "or 'none', got '" + text + "'");
    limits.max_slowdown = x;
  }
  Result<std::unique_ptr<JobInputs>> in = job_inputs_load(o.cluster, o.job, o.layout, o.model);
  if (!in) return fail(err, in.error());
  JobInputs& i = **in;
  Result<Review> r = review_layout(i.cluster, *i.router, i.job, i.layout, i.down, i.model.options, limits);
  if (!r) return fail(err, o.job + ": " + r.error());
  // The text once: printed, and the page's with --html.
  std::ostringstream text;
  if (!o.json || !o.html.empty()) print_text(text, i.cluster, i.job.parallel.order, *r);
  if (!o.html.empty()) {
    const std::vector<ReportPart> parts = {{"layout under review (" + i.layout.source + ")", &i.job, &r->score},
                                           {"the planner's best on the same hosts (order " + r->best.job.parallel.order + ")", &r->best.job, &r->best.score}};
    if (Result<bool> ok = html_report_write(o.html, i.cluster, parts, i.job.name + " on " + o.cluster + ": review", text.str()); !ok)
      return fail(err, ok.error());
  }
  if (o.json) {
    PlanRequest req;
    req.score = i.model.options;
    req.down = i.down;
    nlohmann::json j = {{"verdict", r->pass ? "pass" : "fail"},
                        {"summary", r->verdict},
                        {"reasons", r->reasons},
                        {"slowdown", r->slowdown},
                        {"max_exposed_s", limits.max_exposed_s ? nlohmann::json(*limits.max_exposed_s) : nlohmann::json(nullptr)},
                        {"max_slowdown", limits.max_slowdown ? nlohmann::json(*limits.max_slowdown) : nlohmann::json(nullptr)},
                        {"order", i.job.parallel.order},
                        {"score", score_to_json(i.cluster, *i.router, o.cluster, r->score)},
                        {"best", plan_to_json(i.cluster, *i.router, o.cluster, r->best, req)}};
    out << j.dump(2) << "\n";
  } else {
    out << text.str();
  }
  return r->pass ? kExitOk : kExitCheckFailed;
}

Run setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--cluster", o->cluster, "preset spec (dgx-h100:16) or cluster file")->required();
  app.add_option("--job", o->job, kJobHelp)->required();
  app.add_option("--layout", o->layout, std::string("the layout under review, ") + kLayoutHelp)->required();
  app.add_option("--max-exposed", o->max_exposed, "also fail above this exposed communication per step (e.g. 2s)");
  app.add_option("--max-slowdown", o->max_slowdown,
                 "fail above this multiple of the planner's best exposed communication on the same hosts "
                 "(default " + format_number(*ReviewLimits{}.max_slowdown, 2) + ": at most 25% more; 'none': no such gate)");
  model_flags_add(app, o->model);
  app.add_option("--html", o->html, "write a self-contained HTML report: the layout and the planner's side by side as heat maps, this text");
  app.add_flag("--json", o->json, "machine-readable output");
  return [o](std::ostream& out, std::ostream& err) { return run(*o, out, err); };
}

}  // namespace

Tool review_tool() {
  return {"review", "gate a layout: its score beside the planner's best on the same hosts; exit 1 when it fails", setup};
}

}  // namespace topoplan::cli

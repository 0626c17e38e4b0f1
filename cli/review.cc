// topoplan review: a layout scored beside the planner's best on the same hosts, with a verdict and
// an exit code a scheduler can gate on (planner/review.h).
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>

#include "base/units.h"
#include "cli/model_flags.h"
#include "cli/tool.h"
#include "planner/html_report.h"
#include "planner/review.h"
#include "planner/review_json.h"
#include "planner/review_text.h"

namespace topoplan::cli {
namespace {

struct Options {
  std::string cluster, job, layout, max_exposed, html;
  std::optional<std::string> max_slowdown;  // none given keeps ReviewLimits' default
  ModelSources model;
  bool json = false;
};

int run(const Options& o, std::ostream& out, std::ostream& err) {
  Result<ReviewLimits> limits = review_limits_parse(o.max_exposed, o.max_slowdown);
  if (!limits) return fail(err, limits.error());
  Result<std::unique_ptr<JobInputs>> in = job_inputs_load(o.cluster, o.job, o.layout, o.model);
  if (!in) return fail(err, in.error());
  JobInputs& i = **in;
  Result<Review> r = review_layout(i.cluster, *i.router, i.job, i.layout, i.down, i.model.options, *limits);
  if (!r) return fail(err, o.job + ": " + r.error());
  // The text once: printed, and the page's with --html.
  std::ostringstream text;
  if (!o.json || !o.html.empty()) text << review_text(i.cluster, i.job.parallel.order, *r);
  if (!o.html.empty()) {
    const std::vector<ReportPart> parts = {
        {"layout under review (" + i.layout.source + ")", &i.job, &r->score},
        {"the planner's best on the same hosts (order " + r->best.job.parallel.order + ")", &r->best.job,
         &r->best.score}};
    if (Result<void> ok =
            html_report_write(o.html, i.cluster, parts, i.job.name + " on " + o.cluster + ": review", text.str());
        !ok)
      return fail(err, ok.error());
  }
  if (o.json) {
    out << review_to_json(i.cluster, *i.router, o.cluster, i.job.parallel.order, *r, *limits, i.model.options, i.down)
               .dump(2)
        << "\n";
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
                 "(default " +
                     format_number(*ReviewLimits{}.max_slowdown, 2) + ": at most 25% more; 'none': no such gate)");
  model_flags_add(app, o->model);
  app.add_option(
      "--html", o->html,
      "write a self-contained HTML report: the layout and the planner's side by side as heat maps, this text");
  app.add_flag("--json", o->json, "machine-readable output");
  return [o](std::ostream& out, std::ostream& err) { return run(*o, out, err); };
}

}  // namespace

Tool review_tool() {
  return {"review", "gate a layout: its score beside the planner's best on the same hosts; exit 1 when it fails",
          setup};
}

}  // namespace topoplan::cli

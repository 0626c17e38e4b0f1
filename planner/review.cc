#include "planner/review.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "base/units.h"

namespace topoplan {
namespace {

std::string ratio(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", x);
  return buf;
}

}  // namespace

Result<ReviewLimits> review_limits_parse(const std::string& max_exposed,
                                         const std::optional<std::string>& max_slowdown) {
  ReviewLimits limits;
  if (!max_exposed.empty()) {
    Result<double> d = parse_duration_s(max_exposed);
    if (!d) return Error{"--max-exposed: " + d.error()};
    limits.max_exposed_s = *d;
  }
  if (max_slowdown == "none") {
    limits.max_slowdown.reset();
  } else if (max_slowdown) {
    const std::string& text = *max_slowdown;
    double x = 0;
    const char* end = text.data() + text.size();
    if (std::from_chars(text.data(), end, x).ptr != end || !(x >= 1) || !std::isfinite(x))
      return Error{
          "--max-slowdown: expected a multiple of the planner's best of at least 1 (1.25: at most 25% more) or "
          "'none', got '" +
          text + "'"};
    limits.max_slowdown = x;
  }
  return limits;
}

Result<Review> review_layout(const Cluster& c, const Router& r, const Job& job, const Layout& layout,
                             const DownSet& down, const ScoreOptions& options, const ReviewLimits& limits) {
  Review out;
  Result<JobScore> s = score_job(c, r, job, layout, options);
  RETURN_IF_ERROR(s);
  out.score = std::move(*s);

  // The same hosts, in the order the layout first uses them, are the planner's allocation.
  PlanRequest req;
  req.free = c.hosts_of(layout.gpu_of_rank);
  req.down = down;
  req.score = options;
  Result<Plan> best = plan_job(c, r, job, req);
  if (!best) return Error{"the planner on the same hosts: " + best.error()};
  out.best = std::move(*best);

  const double mine = out.score.exposed_comm_s, theirs = out.best.score.exposed_comm_s;
  out.slowdown = theirs > 0 ? mine / theirs : (mine > 0 ? INFINITY : 1);
  // A job over its GPUs' memory cannot start, whatever its layout.
  if (!out.score.memory.stages.empty() && !out.score.memory.fits())
    out.reasons.push_back("the job does not fit in GPU memory (stage " + std::to_string(out.score.memory.peak_stage) +
                          ": " + format_bytes(out.score.memory.peak().total_bytes() - out.score.memory.capacity_bytes,
                                             SizeUnits::binary) +
                          " over)");
  if (const std::string critical = critical_groups_text(out.score.findings); !critical.empty())
    out.reasons.push_back(critical);
  if (limits.max_exposed_s && mine > *limits.max_exposed_s)
    out.reasons.push_back("over --max-exposed " + format_duration(*limits.max_exposed_s));
  if (limits.max_slowdown && out.slowdown > *limits.max_slowdown)
    out.reasons.push_back("over --max-slowdown " + format_number(*limits.max_slowdown, 2));
  out.pass = out.reasons.empty();

  std::string why;
  for (const std::string& reason : out.reasons) why += (why.empty() ? ": " : "; ") + reason;
  out.verdict =
      std::string(out.pass ? "PASS" : "FAIL") + " " + job.name + ", layout " + layout.source + ": " +
      format_duration(mine) + " exposed communication per step (step " + format_duration(out.score.step_s) + "), " +
      ratio(out.slowdown) + " the planner's best on the same hosts (" + format_duration(theirs) + ", step " +
      format_duration(out.best.score.step_s) + ", order " + out.best.job.parallel.order + ")" +
      (limits.max_slowdown ? ", limit " + format_number(*limits.max_slowdown, 2) + "x" : ", no slowdown limit") + why;
  return out;
}

}  // namespace topoplan

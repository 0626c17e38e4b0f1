#include "planner/arrival.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "base/text_table.h"
#include "base/units.h"
#include "base/words.h"

namespace topoplan {
namespace {

std::string added_text(double after_s, double before_s) {
  char b[32];
  std::snprintf(b, sizeof b, "+%.1f%%", before_s > 0 ? std::max(0.0, 100 * (after_s / before_s - 1)) : 0.0);
  return b;
}

}  // namespace

Result<Arrival> arrival_compute(const Cluster& c, const Router& r, const RunningJobs& running, const RunningJob& job,
                                const ScoreOptions& options) {
  Result<std::vector<JobDemand>> demands = job_demands(c, r, running.jobs, options);
  RETURN_IF_ERROR(demands);
  return arrival_compute(c, r, running, *demands, job, options);
}

Result<Arrival> arrival_compute(const Cluster& c, const Router& r, const RunningJobs& running,
                                const std::vector<JobDemand>& demands, const RunningJob& job,
                                const ScoreOptions& options) {
  std::vector<int> owner(c.num_devices(), -1);
  for (size_t j = 0; j < running.jobs.size(); ++j)
    for (VertexId g : running.jobs[j].layout.gpu_of_rank) owner[g] = static_cast<int>(j);
  for (int rank = 0; rank < job.layout.world_size(); ++rank) {
    const VertexId g = job.layout.gpu_of_rank[static_cast<size_t>(rank)];
    if (owner[g] >= 0)
      return Error{job.where + ": rank " + std::to_string(rank) + " runs on " + c.device(g).name +
                   ", which running job '" + running.jobs[static_cast<size_t>(owner[g])].name + "' (" + running.source +
                   ") has"};
  }
  Result<JobDemand> mine = job_demand(c, r, job, options, demands.empty() ? nullptr : demands.front().choices, true);
  RETURN_IF_ERROR(mine);
  // Only the jobs it shares a link with change: they and it are scored beside the others.
  std::vector<char> on(c.num_edges(), 0);
  for (const LinkUse& l : mine->links) on[l.edge] = 1;
  const size_t n = running.jobs.size();
  std::vector<char> met(n, 0);
  for (size_t j = 0; j < n; ++j)
    for (const LinkUse& l : demands[j].links)
      if (on[l.edge]) {
        met[j] = 1;
        break;
      }
  std::vector<RunningJob> all = running.jobs;
  all.push_back(job);
  std::vector<const JobDemand*> of;
  for (const JobDemand& d : demands) of.push_back(&d);
  of.push_back(&*mine);
  // The new job is scored beside them here; the jobs it meets below, with and without it.
  std::vector<char> rescore(n + 1, 0);
  rescore.back() = 1;
  Result<Contention> after = contention_compute(c, r, all, of, options, rescore);
  RETURN_IF_ERROR(after);
  Arrival out;
  out.after = std::move(*after);
  if (std::find(met.begin(), met.end(), 1) == met.end()) return out;
  of.pop_back();
  Result<Contention> before = contention_compute(c, r, running.jobs, of, options, std::vector<char>(n, 0));
  RETURN_IF_ERROR(before);
  // Each job it meets, beside the others with it and without it: one state, four backgrounds.
  for (size_t j = 0; j < n; ++j) {
    if (!met[j]) continue;
    const auto& with = out.after.jobs[j].background;
    const auto& without = before->jobs[j].background;
    Result<std::vector<double>> steps =
        steps_beside(c, r, running.jobs[j], demands[j], options, {&with[0], &with[1], &without[0], &without[1]});
    RETURN_IF_ERROR(steps);
    ArrivalEffect e;
    e.job = j;
    for (size_t a = 0; a < kAlignments; ++a) {
      contention_set_step(out.after, j, static_cast<Alignment>(a), (*steps)[a]);
      e.after_s[a] = (*steps)[a];
      e.before_s[a] = (*steps)[kAlignments + a];
      if (e.before_s[a] > 0)
        out.lost_gpus[a] += out.after.jobs[j].gpus * std::max(0.0, e.after_s[a] - e.before_s[a]) / e.before_s[a];
    }
    out.effects.push_back(e);
  }
  return out;
}

std::string arrival_text(const RunningJobs& running, const Arrival& k) {
  const ContentionJob& me = k.job();
  const auto avg = static_cast<size_t>(Alignment::average), worst = static_cast<size_t>(Alignment::worst);
  std::string out = "\nbeside " + counted(static_cast<int64_t>(running.jobs.size()), "running job") + " (" +
                    running.source + "; average: phases unaligned, worst: every job at its busiest phase at once):\n";
  out += "  this job: " + format_duration(me.step_alone_s) + " alone, " + format_duration(me.beside[avg].step_s) +
         " beside them on average (" + added_text(me.beside[avg].step_s, me.step_alone_s) + "), " +
         format_duration(me.beside[worst].step_s) + " at worst (" +
         added_text(me.beside[worst].step_s, me.step_alone_s) + ")\n";
  if (k.effects.empty()) return out + "  it shares no link with them: their steps stay as they are\n";
  char lost[96];
  std::snprintf(lost, sizeof lost, "%.1f GPUs' time on average, %.1f at worst", k.lost_gpus[avg], k.lost_gpus[worst]);
  out += "  it shares links with " + std::to_string(k.effects.size()) + " of them, costing " + lost +
         " (GPUs x added step / step):\n";
  using A = TextTable::Align;
  TextTable t({A::left, A::right, A::right, A::right, A::right, A::right, A::right, A::right});
  t.add({"job", "GPUs", "before", "after", "added", "before (worst)", "after (worst)", "added"}, "    ");
  for (const ArrivalEffect& e : k.effects) {
    const ContentionJob& j = k.after.jobs[e.job];
    t.add({j.name, std::to_string(j.gpus), format_duration(e.before_s[avg]), format_duration(e.after_s[avg]),
           added_text(e.after_s[avg], e.before_s[avg]), format_duration(e.before_s[worst]),
           format_duration(e.after_s[worst]), added_text(e.after_s[worst], e.before_s[worst])},
          "    ");
  }
  return out + t.str();
}

nlohmann::json arrival_json(const RunningJobs& running, const Arrival& k) {
  const ContentionJob& me = k.job();
  nlohmann::json self = {{"step_alone_s", me.step_alone_s}};
  nlohmann::json slowed = nlohmann::json::array();
  for (size_t a = 0; a < kAlignments; ++a) {
    const std::string name(to_string(static_cast<Alignment>(a)));
    self[name] = {{"step_s", me.beside[a].step_s}, {"slowdown", me.beside[a].slowdown}};
  }
  for (const ArrivalEffect& e : k.effects) {
    const ContentionJob& j = k.after.jobs[e.job];
    nlohmann::json x = {{"job", j.name}, {"gpus", j.gpus}};
    for (size_t a = 0; a < kAlignments; ++a)
      x[std::string(to_string(static_cast<Alignment>(a)))] = {{"step_before_s", e.before_s[a]},
                                                              {"step_after_s", e.after_s[a]}};
    slowed.push_back(std::move(x));
  }
  nlohmann::json lost;
  for (size_t a = 0; a < kAlignments; ++a) lost[std::string(to_string(static_cast<Alignment>(a)))] = k.lost_gpus[a];
  return {{"source", running.source},
          {"jobs", running.jobs.size()},
          {"this_job", self},
          {"slowed", slowed},
          {"lost_gpus", lost}};
}

}  // namespace topoplan

#include "planner/plan_running.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numeric>

#include "base/sort_unique.h"
#include "base/text_table.h"
#include "base/units.h"
#include "base/words.h"

namespace topoplan {
Result<Background> running_background(const Cluster& c, const Router& r, const RunningJobs& running,
                                      const std::vector<JobDemand>& demands, const ScoreOptions& options, Alignment a) {
  std::vector<const JobDemand*> of;
  for (const JobDemand& d : demands) of.push_back(&d);
  Result<Contention> k = contention_compute(c, r, running.jobs, of, options, std::vector<char>(running.jobs.size(), 0));
  RETURN_IF_ERROR(k);
  Background bg;
  bg.source = "the running jobs (" + std::string(to_string(a)) + " alignment)";
  std::vector<FlowDemand> others;
  for (const ContendedLink& l : k->links) {
    others.clear();
    double flows = 0;
    for (const JobOnLink& j : l.jobs) {
      others.push_back({j.flows, demand_of(j.utilization, j.peak, a)});
      flows += j.flows;
    }
    const int self = std::max(1, static_cast<int>(std::lround(flows / static_cast<double>(l.jobs.size()))));
    const std::vector<double> part = fair_parts(self, others);
    const double taken = std::accumulate(part.begin(), part.end(), 0.0);
    if (taken > 0) bg.utilization.emplace_back(l.edge, taken);
  }
  return bg;
}

Result<RunningPlan> plan_beside_running(const Cluster& c, const Router& r, const Job& job, const PlanRequest& req,
                                        const RunningPlanRequest& rq) {
  const RunningJobs& running = *rq.running;
  const size_t align = static_cast<size_t>(rq.alignment);
  // Their demands alone, once for every placement scored beside them.
  std::vector<JobDemand> computed;
  if (!rq.demands) {
    Result<std::vector<JobDemand>> d = job_demands(c, r, running.jobs, req.score, true);
    RETURN_IF_ERROR(d);
    computed = std::move(*d);
  }
  const std::vector<JobDemand>& demands = rq.demands ? *rq.demands : computed;
  Result<Background> planning = running_background(c, r, running, demands, req.score, rq.alignment);
  RETURN_IF_ERROR(planning);
  const Background& bg = *planning;

  // The free hosts: those offered where no running job has a rank.
  const Locality& loc = locality_of(c);
  std::vector<int> busy(c.hosts().size(), -1);  // the running job with a rank there
  std::vector<char> crossed(static_cast<size_t>(loc.leaf_groups), 0);
  for (size_t k = 0; k < running.jobs.size(); ++k) {
    const RunningJob& j = running.jobs[k];
    std::vector<int> groups;
    for (VertexId g : j.layout.gpu_of_rank) {
      const int h = c.device(g).host;
      busy[static_cast<size_t>(h)] = static_cast<int>(k);
      groups.push_back(loc.leaf_group[static_cast<size_t>(h)]);
    }
    sort_unique(groups);
    // A job over several leaf groups loads their uplinks.
    if (groups.size() > 1)
      for (int g : groups) crossed[static_cast<size_t>(g)] = 1;
  }
  std::vector<int> free, away;
  std::string taken;  // "h001 (a), h002 (b)"
  int free_gpus = 0;
  for (int h : hosts_offered(c, req.free)) {
    if (busy[static_cast<size_t>(h)] >= 0) {
      taken += (taken.empty() ? "" : ", ") + c.hosts()[static_cast<size_t>(h)].name + " (" +
               running.jobs[static_cast<size_t>(busy[static_cast<size_t>(h)])].name + ")";
      continue;
    }
    free.push_back(h);
    free_gpus += req.down.gpus_up_count(c, h);
    if (!crossed[static_cast<size_t>(loc.leaf_group[static_cast<size_t>(h)])]) away.push_back(h);
  }
  if (free.empty()) return Error{"every host offered runs a rank of a running job (" + running.source + ")"};
  if (free_gpus < job_ranks(job) && !taken.empty())
    return Error{"the job needs " + std::to_string(job_ranks(job)) + " GPUs; the " + std::to_string(free.size()) +
                 " free hosts offered have " + std::to_string(free_gpus) + " up, and running jobs (" + running.source +
                 ") hold " + taken};
  int away_gpus = 0;
  for (int h : away) away_gpus += req.down.gpus_up_count(c, h);

  RunningPlan out;
  out.request = rq;
  std::vector<Plan> plans;  // per host set
  struct Placed {
    size_t plan = 0;
    Layout layout;
    Arrival arrival;
  };
  std::vector<Placed> placed;  // parallel to out.options
  auto weigh = [&](const std::string& what, size_t plan, const std::string& order, const Layout& layout,
                   bool searched) -> Result<void> {
    Job placed_job = plans[plan].job;
    placed_job.parallel.order = order;
    Result<Arrival> a = arrival_compute(c, r, running, demands, {job.name, "the plan", placed_job, layout}, req.score);
    RETURN_IF_ERROR(a);
    RunningOption o;
    o.what = what;
    o.order = order;
    o.searched = searched;
    o.hosts = c.hosts_of(layout.gpu_of_rank);
    o.step_s = a->job().beside[align].step_s;
    o.lost_gpus = a->lost_gpus[align];
    auto cost = [&](size_t k) { return a->job().beside[k].step_s * (job_ranks(job) + rq.weight * a->lost_gpus[k]); };
    o.cost = cost(align);
    o.cost_other = cost(kAlignments - 1 - align);
    const size_t self = running.jobs.size();
    for (const ContendedLink& l : a->after.links)
      for (const JobOnLink& x : l.jobs) o.shared_links += x.job == self && l.jobs.size() >= 2;
    out.options.push_back(std::move(o));
    placed.push_back({plan, layout, std::move(*a)});
    return {};
  };
  auto consider = [&](const std::string& what, const std::vector<int>& hosts) -> Result<void> {
    PlanRequest one = req;
    one.free = hosts;
    one.score.fabric = FabricMode::idle;
    one.score.background = &bg;
    one.layouts_kept = kOrdersWeighed;
    Result<Plan> p = plan_job(c, r, job, one);
    if (!p) return Error{"planning " + what + ": " + p.error()};
    plans.push_back(std::move(*p));
    const Plan& plan = plans.back();
    const size_t at = plans.size() - 1;
    RETURN_IF_ERROR(weigh(what, at, plan.job.parallel.order, plan.layout, true));
    // The next order strings as placed, where they keep the rules as well as the plan does.
    size_t weighed = 1;
    for (const PlanCandidate& k : plan.candidates) {
      if (weighed == kOrdersWeighed) break;
      if (!k.layout || k.order == plan.job.parallel.order || k.violations > plan.violations) continue;
      RETURN_IF_ERROR(weigh(what, at, k.order, *k.layout, false));
      ++weighed;
    }
    return {};
  };
  RETURN_IF_ERROR(consider("beside them, on the free hosts", free));
  // Hosts away from them are worth a second plan only when the first meets them.
  if (out.options.front().shared_links > 0 && away_gpus >= job_ranks(job) && away.size() < free.size())
    RETURN_IF_ERROR(consider("beside them, away from the leaf groups whose uplinks they cross", away));
  auto less = [](double x, double y) { return x < y - 1e-9 * std::max(std::abs(x), std::abs(y)); };
  for (size_t i = 1; i < out.options.size(); ++i) {
    const RunningOption &o = out.options[i], &best = out.options[out.chosen];
    if (less(o.cost, best.cost) || less(best.cost, o.cost)) {
      if (less(o.cost, best.cost)) out.chosen = i;
    } else if (less(o.cost_other, best.cost_other) ||
               (!less(best.cost_other, o.cost_other) && o.shared_links < best.shared_links)) {
      out.chosen = i;
    }
  }
  double least = out.options.front().step_s;
  for (const RunningOption& o : out.options) least = std::min(least, o.step_s);
  out.gave_up_s = out.options[out.chosen].step_s - least;
  Placed& won = placed[out.chosen];
  out.plan = std::move(plans[won.plan]);
  out.arrival = std::move(won.arrival);
  // The plan's score is the one beside them, as score --layout plan.json --running gives it.
  ScoreOptions beside = req.score;
  beside.fabric = FabricMode::idle;
  beside.background = &out.arrival.job().background[align];
  RETURN_IF_ERROR(plan_place(c, r, out.plan, out.options[out.chosen].order, won.layout, beside, req.keep_given));
  out.plan.score.background = out.arrival.job().background[align].source;
  return out;
}

std::string running_plan_text(const RunningPlan& p) {
  std::string out = "\nplaced beside " + counted(static_cast<int64_t>(p.request.running->jobs.size()), "running job") +
                    " (" + p.request.running->source + ", " + std::string(to_string(p.request.alignment)) +
                    " alignment): the least step x (GPUs + " + format_number(p.request.weight) +
                    " x the GPUs' time it costs them)\n";
  using A = TextTable::Align;
  TextTable t({A::left, A::right, A::right, A::right, A::right, A::left, A::left});
  t.add({"", "step beside them", "costs them", "GPU-s per step", "links shared", "order", "placement"}, "  ");
  for (size_t i = 0; i < p.options.size(); ++i) {
    const RunningOption& o = p.options[i];
    char lost[32], cost[32];
    std::snprintf(lost, sizeof lost, "%.1f GPUs", o.lost_gpus);
    std::snprintf(cost, sizeof cost, "%.1f", o.cost);
    t.add({i == p.chosen ? "plan" : "", format_duration(o.step_s), lost, cost, std::to_string(o.shared_links), o.order,
           o.what + (o.searched ? ", searched" : ", in topology order")},
          "  ");
  }
  out += t.str();
  if (p.gave_up_s > 0) out += "  it gives up " + format_duration(p.gave_up_s) + " of its own step for the others\n";
  return out + arrival_text(*p.request.running, p.arrival);
}

nlohmann::json running_plan_json(const Cluster& c, const RunningPlan& p) {
  nlohmann::json options = nlohmann::json::array();
  for (size_t i = 0; i < p.options.size(); ++i) {
    const RunningOption& o = p.options[i];
    std::vector<std::string> hosts;
    for (int h : o.hosts) hosts.push_back(c.hosts()[static_cast<size_t>(h)].name);
    options.push_back({{"what", o.what},
                       {"order", o.order},
                       {"searched", o.searched},
                       {"chosen", i == p.chosen},
                       {"step_s", o.step_s},
                       {"lost_gpus", o.lost_gpus},
                       {"cost_gpu_s", o.cost},
                       {"shared_links", o.shared_links},
                       {"hosts", hosts}});
  }
  nlohmann::json j = arrival_json(*p.request.running, p.arrival);
  j["alignment"] = to_string(p.request.alignment);
  j["weight"] = p.request.weight;
  j["options"] = options;
  j["gave_up_s"] = p.gave_up_s;
  return j;
}

}  // namespace topoplan

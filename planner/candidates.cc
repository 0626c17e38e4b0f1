#include "planner/candidates.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>

#include "planner/allocation_pattern.h"

namespace topoplan {

Result<CandidateRanking> candidates_rank(const Cluster& c, const Router& r, const Job& job,
                                         const std::vector<CandidateAllocation>& candidates, const PlanRequest& request,
                                         const RunningPlanRequest* running) {
  const Locality& loc = locality_of(c);
  const AllocationPatterns patterns(c, loc, request.down, request.score);
  CandidateRanking out;
  const std::string hosts_alike = "those that differ only in which hosts of a leaf group they use";
  if (!patterns.why_not().empty())
    out.sharing = "each on its own: " + patterns.why_not();
  else if (!patterns.groups_why_not().empty())
    out.sharing = hosts_alike + " share one (not leaf groups: " + patterns.groups_why_not() + ")";
  else
    out.sharing = hosts_alike + ", or which leaf groups of a pod, share one";
  // The running jobs' traffic tells hosts apart; their demands and states are made once.
  std::vector<JobDemand> demands;
  RunningPlanRequest beside;
  if (running) {
    out.sharing = "each on its own: the running jobs' traffic tells hosts apart";
    Result<std::vector<JobDemand>> d = job_demands(c, r, running->running->jobs, request.score, true);
    RETURN_IF_ERROR(d);
    demands = std::move(*d);
    beside = *running;
    beside.demands = &demands;
    out.running = running;
  }
  out.results.resize(candidates.size());
  out.searched = request.search;
  // By pattern, or by the exact hosts chosen where patterns do not hold: the candidate planned.
  std::map<std::string, size_t> planned;
  PlanRequest req = request;
  req.beside = false;
  for (size_t i = 0; i < candidates.size(); ++i) {
    CandidateResult& res = out.results[i];
    Result<HostChoice> choice = hosts_choose(c, loc, request.down, candidates[i].hosts, job_ranks(job));
    if (!choice) {
      res.why = choice.error();
      continue;
    }
    std::string key = running ? std::string() : patterns.key(choice->hosts);
    if (key.empty())
      key.assign(reinterpret_cast<const char*>(choice->hosts.data()), choice->hosts.size() * sizeof(int));
    if (auto same = planned.find(key); same != planned.end()) {
      const CandidateResult& first = out.results[same->second];
      res = first;
      res.planned_as = static_cast<int>(same->second);
      res.hosts = choice->hosts;
      res.spans = choice->spans;
      continue;
    }
    req.free = candidates[i].hosts;
    std::optional<RunningPlan> near;
    Result<Plan> plan = Error{""};
    if (running) {
      Result<RunningPlan> p = plan_beside_running(c, r, job, req, beside);
      if (p) {
        near = std::move(*p);
        plan = near->plan;
      } else {
        plan = Error{p.error()};
      }
    } else {
      plan = plan_job(c, r, job, req);
    }
    ++out.planned;
    planned.emplace(std::move(key), i);
    if (!plan) {
      res.why = plan.error();
      continue;
    }
    if (near) {
      res.lost_gpus = near->options[near->chosen].lost_gpus;
      res.cost_gpu_s = near->options[near->chosen].cost;
    }
    res.holds = true;
    res.step_s = plan->score.step_s;
    res.exposed_s = plan->score.exposed_comm_s;
    res.order = plan->job.parallel.order;
    res.hosts = plan->hosts.hosts;
    res.spans = plan->hosts.spans;
    res.violations = plan->violations;
  }
  out.ranked.resize(candidates.size());
  std::iota(out.ranked.begin(), out.ranked.end(), size_t{0});
  std::stable_sort(out.ranked.begin(), out.ranked.end(), [&](size_t a, size_t b) {
    const CandidateResult &x = out.results[a], &y = out.results[b];
    if (x.holds != y.holds) return x.holds;
    if (running && x.cost_gpu_s != y.cost_gpu_s) return x.cost_gpu_s < y.cost_gpu_s;
    if (x.step_s != y.step_s) return x.step_s < y.step_s;
    return x.exposed_s < y.exposed_s;
  });
  int rank = 0;
  for (size_t i : out.ranked)
    if (out.results[i].holds) out.results[i].rank = ++rank;
  return out;
}

}  // namespace topoplan

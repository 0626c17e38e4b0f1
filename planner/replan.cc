#include "planner/replan.h"

#include <algorithm>
#include <map>

#include "base/words.h"
#include "topology/locality.h"
#include "topology/summary.h"

namespace topoplan {
namespace {

// The ranks on `host` in `layout`, by the local index of their GPU.
std::map<int, int> ranks_on(const Cluster& c, const Layout& layout, int host) {
  std::map<int, int> out;
  for (int r = 0; r < layout.world_size(); ++r) {
    const Device& d = c.device(layout.gpu_of_rank[static_cast<size_t>(r)]);
    if (d.host == host) out[d.local_index] = r;
  }
  return out;
}

// `layout` with the ranks of host `from` on host `to`'s GPUs of the same local index, and `to`'s
// on `from`'s when `swap`; nullopt when `to` lacks one of those GPUs or has it down.
std::optional<Layout> moved(const Cluster& c, const DownSet& down, const Layout& layout, int from, int to, bool swap) {
  Layout out = layout;
  auto place = [&](int src, int dst) {
    const std::vector<VertexId>& gpus = c.hosts()[static_cast<size_t>(dst)].gpus;
    for (const auto& [local, rank] : ranks_on(c, layout, src)) {
      if (local >= static_cast<int>(gpus.size()) || down.device_down(gpus[static_cast<size_t>(local)])) return false;
      out.gpu_of_rank[static_cast<size_t>(rank)] = gpus[static_cast<size_t>(local)];
    }
    return true;
  };
  if (!place(from, to) || (swap && !place(to, from))) return std::nullopt;
  return out;
}

struct Scored {
  JobScore score;
  Objective objective;
};

// The planner's objective of a score (no rules: a mended plan keeps the plan's).
Objective objective_of(const JobScore& s) { return {0, s.exposed_comm_s * 1e6, s.level_bytes}; }

Result<Scored> score_of(const Cluster& c, const Router& r, const Job& job, const Layout& layout,
                        const ScoreOptions& opt) {
  Result<JobScore> s = score_job(c, r, job, layout, opt);
  RETURN_IF_ERROR(s);
  const Objective objective = objective_of(*s);
  return Scored{std::move(*s), objective};
}

// Hosts in the order of their first rank.
std::vector<int> host_order_of(const Cluster& c, const Layout& layout) {
  std::vector<int> order;
  for (VertexId g : layout.gpu_of_rank)
    if (std::find(order.begin(), order.end(), c.device(g).host) == order.end()) order.push_back(c.device(g).host);
  return order;
}

}  // namespace

Result<Replan> replan_job(const Cluster& c, const Router& r, const Job& job, const Layout& before,
                          const ReplanRequest& req) {
  const std::vector<int> used = host_order_of(c, before);
  auto in_plan = [&](int h) { return std::find(used.begin(), used.end(), h) != used.end(); };
  for (int h : req.failed)
    if (!in_plan(h)) return Error{"failed host " + host_name(c, h) + " runs no rank of the plan"};
  std::vector<int> degraded;  // those the plan uses
  for (int h : req.degraded)
    if (in_plan(h) && std::find(req.failed.begin(), req.failed.end(), h) == req.failed.end()) degraded.push_back(h);
  std::vector<int> spares = req.spares;
  if (spares.empty())
    for (int h = 0; h < static_cast<int>(c.hosts().size()); ++h)
      if (!in_plan(h) && !req.down.gpus_up(c, h).empty()) spares.push_back(h);
  for (int h : req.spares) {
    if (in_plan(h)) return Error{"spare " + host_name(c, h) + " is busy: it runs ranks of the plan"};
    if (req.down.gpus_up(c, h).empty()) return Error{"spare " + host_name(c, h) + " has no GPU up"};
  }

  Replan out;
  Layout layout = before;
  // First every failed host's ranks on the first spare that can take them, so every layout scored
  // is whole; then each failed host's ranks, in turn, on every spare the others do not hold.
  std::vector<int> at;  // where each failed host's ranks are now
  for (int failed : req.failed) {
    std::optional<Layout> placed;
    for (int spare : spares)
      if (std::find(at.begin(), at.end(), spare) == at.end() &&
          (placed = moved(c, req.down, layout, failed, spare, false))) {
        at.push_back(spare);
        break;
      }
    if (!placed)
      return Error{"no spare can take the " + std::to_string(ranks_on(c, layout, failed).size()) + " ranks of " +
                   host_name(c, failed) + ": each needs the same GPUs up (" + counted(spares.size(), "spare") + ", " +
                   std::to_string(at.size()) + " taken by other failed hosts)"};
    layout = std::move(*placed);
  }
  // Degraded hosts' ranks start where they are, and may stay.
  std::vector<int> movable = req.failed;
  movable.insert(movable.end(), degraded.begin(), degraded.end());
  at.insert(at.end(), degraded.begin(), degraded.end());
  for (size_t i = 0; i < movable.size(); ++i) {
    HostReplacement rep;
    rep.host = movable[i];
    rep.failed = i < req.failed.size();
    std::optional<Scored> best;
    std::vector<int> candidates = spares;
    if (!rep.failed) candidates.insert(candidates.begin(), rep.host);
    for (int spare : candidates) {
      if (spare != at[i] && std::find(at.begin(), at.end(), spare) != at.end()) continue;
      const std::optional<Layout> candidate = moved(c, req.down, layout, at[i], spare, false);
      if (!candidate) continue;
      Result<Scored> s = score_of(c, r, job, *candidate, req.score);
      RETURN_IF_ERROR(s);
      double above = 0;
      for (int l = 3; l < kFabricLevels; ++l) above += s->score.level_bytes[static_cast<size_t>(l)];
      rep.scored.push_back({spare, s->score.step_s, s->score.exposed_comm_s, s->score.level_bytes[2], above});
      if (!best || objective_better(s->objective, best->objective)) {
        best = std::move(*s);
        rep.spare = spare;
      }
    }
    // The chosen first, then by step.
    std::stable_sort(rep.scored.begin(), rep.scored.end(), [&](const SpareScore& a, const SpareScore& b) {
      return (a.host == rep.spare) != (b.host == rep.spare) ? a.host == rep.spare : a.step_s < b.step_s;
    });
    layout = *moved(c, req.down, layout, at[i], rep.spare, false);
    at[i] = rep.spare;
    out.plan.score = std::move(best->score);
    out.replacements.push_back(std::move(rep));
  }
  if (movable.empty()) {  // a slower switch link only: the plan as it is, scored on it
    Result<Scored> s = score_of(c, r, job, layout, req.score);
    RETURN_IF_ERROR(s);
    out.plan.score = std::move(s->score);
  }
  for (int rank = 0; rank < layout.world_size(); ++rank)
    if (layout.gpu_of_rank[static_cast<size_t>(rank)] != before.gpu_of_rank[static_cast<size_t>(rank)])
      out.moved_ranks.push_back(rank);

  // One more host swapped with a new one, scored and offered, never applied.
  const std::vector<int> hosts = host_order_of(c, layout);
  out.swap_searched = hosts.size() <= kSwapSearchHosts;
  if (out.swap_searched) {
    const Objective now = objective_of(out.plan.score);
    std::optional<Scored> best;
    for (const HostReplacement& rep : out.replacements)
      for (int other : hosts) {
        if (other == rep.spare || rep.spare == rep.host) continue;
        const std::optional<Layout> candidate = moved(c, req.down, layout, rep.spare, other, true);
        if (!candidate) continue;
        Result<Scored> s = score_of(c, r, job, *candidate, req.score);
        RETURN_IF_ERROR(s);
        const bool shorter = s->score.step_s < out.plan.score.step_s * (1 - 1e-3);
        if (shorter && objective_better(s->objective, now) &&
            (!best || objective_better(s->objective, best->objective))) {
          out.swap = HostSwap{rep.spare, other, static_cast<int>(ranks_on(c, layout, other).size()), s->score.step_s,
                              s->score.exposed_comm_s};
          best = std::move(*s);
        }
      }
  }

  // The mended plan, as plan writes one.
  Plan& p = out.plan;
  p.job = job;
  p.layout = layout;
  p.layout.source = "replan";
  p.host_order = hosts;
  p.hosts.hosts = hosts;
  const Locality& loc = locality_of(c);
  hosts_sort(loc, p.hosts.hosts);
  for (int h : hosts) p.hosts.gpus += static_cast<int>(req.down.gpus_up(c, h).size());
  p.hosts.why = "the plan's hosts";
  for (const HostReplacement& rep : out.replacements)
    if (rep.spare != rep.host) p.hosts.why += ", " + host_name(c, rep.spare) + " for " + host_name(c, rep.host);

  // The planner on the same hosts, for how much a full re-plan would gain and move.
  PlanRequest full;
  full.free = hosts;
  full.down = req.down;
  full.score = req.score;
  full.seed = req.seed;
  Result<Plan> planned = plan_job(c, r, job, full);
  RETURN_IF_ERROR(planned);
  out.full = std::move(*planned);
  for (int rank = 0; rank < layout.world_size(); ++rank)
    out.full_moved += out.full.layout.gpu_of_rank[static_cast<size_t>(rank)] != before.gpu_of_rank[static_cast<size_t>(rank)];
  // What plan writes beside its own: the full re-plan as the one baseline.
  p.baselines.push_back({"full re-plan on these hosts", out.full.job.parallel.order,
                         "the planner on the same hosts; it moves " + std::to_string(out.full_moved) + " of " +
                             std::to_string(layout.world_size()) + " ranks",
                         out.full.score.exposed_comm_s, out.full.violations, true});
  p.hosts.spans = out.full.hosts.spans;
  return out;
}

}  // namespace topoplan

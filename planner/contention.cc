#include "planner/contention.h"

#include <algorithm>
#include <numeric>
#include <span>

namespace topoplan {
namespace {

// The most of one item's groups that cross each edge (segments expanded), over the items.
std::vector<int> flows_of(const Router& r, const ScoreState& state, const std::vector<LinkUse>& links,
                          size_t num_edges) {
  std::vector<int> count(num_edges, 0), most(num_edges, 0);
  std::vector<uint32_t> stamp(num_edges, 0);
  std::vector<EdgeId> hit;
  uint32_t group_stamp = 0;
  for (size_t i = 0; i < state.item_count(); ++i) {
    hit.clear();
    for (size_t g = 0; g < state.item_groups(i).size(); ++g) {
      ++group_stamp;
      auto one = [&](EdgeId e) {
        if (stamp[e] == group_stamp) return;
        stamp[e] = group_stamp;
        if (count[e]++ == 0) hit.push_back(e);
      };
      const Touched& t = state.item_touched(i, g);
      for (EdgeId e : t.edges) one(e);
      for (uint32_t id : t.segments)
        for (const Hop& h : *r.segment(id).hops) one(h.edge);
    }
    for (EdgeId e : hit) {
      most[e] = std::max(most[e], count[e]);
      count[e] = 0;
    }
  }
  std::vector<int> out;
  out.reserve(links.size());
  // A loaded link has at least the one flow that loads it.
  for (const LinkUse& l : links) out.push_back(std::max(1, most[l.edge]));
  return out;
}

// The jobs are the only traffic: an idle fabric, no other background.
ScoreOptions alone_options(ScoreOptions options) {
  options.fabric = FabricMode::idle;
  options.background = nullptr;
  return options;
}

}  // namespace

std::string_view to_string(Alignment a) { return a == Alignment::average ? "average" : "worst"; }

namespace {

// One job's traffic on one edge, as the others see it.
struct Entry {
  uint32_t job = 0, at = 0;  // the job, and the link in its Demand::links
  double flows = 1;
  double demand = 0;  // under the alignment being filled
};

// Max-min fair shares of one link among the entries `sorted` (ascending demand per flow) but the
// one at `skip`, beside `self_flows` that take what they can get: `level`, the part per flow of
// those that do not get their demand (entry k's part is min(demand, flows × level)), and `taken`,
// the entries' parts summed. Self's part is what is left, 1 - taken.
struct FairShare {
  double level = 0, taken = 0;
};
FairShare fair_share(double self_flows, double others_flows, const Entry* sorted, size_t n, size_t skip) {
  // Each gets its demand while that is below an equal split of what is left among the flows still
  // wanting; from the first that does not on, all get that split.
  double room = 1, weight = self_flows + others_flows;
  for (size_t k = 0; k < n; ++k) {
    if (k == skip) continue;
    if (sorted[k].demand * weight >= sorted[k].flows * room) break;
    room -= sorted[k].demand;
    weight -= sorted[k].flows;
  }
  const double level = room / weight;
  return {level, 1 - room + (weight - self_flows) * level};
}

double part_of(const Entry& e, double level) { return std::min(e.demand, e.flows * level); }

void sort_by_demand_per_flow(Entry* begin, Entry* end) {
  std::stable_sort(begin, end, [](const Entry& a, const Entry& b) { return a.demand * b.flows < b.demand * a.flows; });
}

}  // namespace

double demand_of(double utilization, double peak, Alignment a) {
  return std::clamp(a == Alignment::average ? utilization : peak, 0.0, 1.0);
}

std::vector<double> fair_parts(int self_flows, const std::vector<FlowDemand>& others) {
  std::vector<Entry> sorted;
  double flows = 0;
  for (size_t k = 0; k < others.size(); ++k) {
    sorted.push_back({static_cast<uint32_t>(k), 0, static_cast<double>(others[k].flows), others[k].demand});
    flows += others[k].flows;
  }
  sort_by_demand_per_flow(sorted.data(), sorted.data() + sorted.size());
  const double level = fair_share(self_flows, flows, sorted.data(), sorted.size(), SIZE_MAX).level;
  std::vector<double> part(others.size(), 0);
  for (const Entry& e : sorted) part[e.job] = part_of(e, level);
  return part;
}

Result<JobDemand> job_demand(const Cluster& c, const Router& r, const RunningJob& job, const ScoreOptions& options,
                             std::shared_ptr<ScoreState::Memo> choices, bool keep_state) {
  const ScoreOptions alone = alone_options(options);
  Result<std::unique_ptr<ScoreState>> s = choices ? ScoreState::make(c, r, job.job, job.layout, alone, choices)
                                                  : ScoreState::make(c, r, job.job, job.layout, alone);
  if (!s) return Error{job.where + " (" + job.name + "): " + s.error()};
  JobDemand d;
  d.step_s = state_step_s(**s);
  d.links = link_uses(**s);
  d.flows = flows_of(r, **s, d.links, c.num_edges());
  d.choices = (*s)->memo();
  if (keep_state) d.state = std::move(*s);
  return d;
}

Result<std::vector<JobDemand>> job_demands(const Cluster& c, const Router& r, const std::vector<RunningJob>& jobs,
                                           const ScoreOptions& options, bool keep_states) {
  // Jobs of alike shapes make alike groups: NCCL's choices are kept for all of them.
  std::vector<JobDemand> out;
  for (const RunningJob& j : jobs) {
    Result<JobDemand> d = job_demand(c, r, j, options, out.empty() ? nullptr : out.front().choices, keep_states);
    RETURN_IF_ERROR(d);
    out.push_back(std::move(*d));
  }
  return out;
}

Result<Contention> contention_compute(const Cluster& c, const Router& r, const std::vector<RunningJob>& jobs,
                                      const ScoreOptions& options, std::span<const char> rescore) {
  Result<std::vector<JobDemand>> demands = job_demands(c, r, jobs, options);
  RETURN_IF_ERROR(demands);
  std::vector<const JobDemand*> of;
  for (const JobDemand& d : *demands) of.push_back(&d);
  return contention_compute(c, r, jobs, of, options, rescore);
}

Result<std::vector<double>> steps_beside(const Cluster& c, const Router& r, const RunningJob& job,
                                         const JobDemand& demand, const ScoreOptions& options,
                                         const std::vector<const Background*>& backgrounds) {
  std::vector<double> out;
  std::shared_ptr<ScoreState> state = demand.state;
  for (const Background* bg : backgrounds) {
    if (bg->utilization.empty()) {
      out.push_back(demand.step_s);
      continue;
    }
    if (state) {
      state->set_background(bg);
    } else {
      ScoreOptions with = alone_options(options);
      with.background = bg;
      Result<std::unique_ptr<ScoreState>> s = ScoreState::make(c, r, job.job, job.layout, with, demand.choices);
      if (!s) return Error{job.where + " (" + job.name + "): " + s.error()};
      state = std::move(*s);
    }
    out.push_back(state_step_s(*state));
  }
  return out;
}

void contention_set_step(Contention& k, size_t j, Alignment a, double step_s) {
  ContentionJob& job = k.jobs[j];
  JobBeside& beside = job.beside[static_cast<size_t>(a)];
  beside.step_s = step_s;
  beside.slowdown = job.step_alone_s > 0 ? step_s / job.step_alone_s : 1;
  beside.causes.clear();
  const std::vector<double>& parts = job.parts[static_cast<size_t>(a)];
  const double added = step_s - job.step_alone_s;
  const double total = std::accumulate(parts.begin(), parts.end(), 0.0);
  if (added > 0 && total > 0)
    for (size_t o = 0; o < parts.size(); ++o)
      if (parts[o] > 0) beside.causes.push_back({o, parts[o] / total, added * parts[o] / total});
  std::stable_sort(beside.causes.begin(), beside.causes.end(),
                   [](const ContentionCause& x, const ContentionCause& y) { return x.share > y.share; });
}

Result<Contention> contention_compute(const Cluster& c, const Router& r, const std::vector<RunningJob>& jobs,
                                      const std::vector<const JobDemand*>& demand, const ScoreOptions& options,
                                      std::span<const char> rescore) {
  Contention out;
  const size_t n = jobs.size();
  // Per edge, the jobs loading it, contiguous (edge e's from begin[e] to begin[e + 1]).
  std::vector<uint32_t> begin(c.num_edges() + 1, 0);
  for (size_t j = 0; j < n; ++j) {
    for (const LinkUse& l : demand[j]->links) ++begin[l.edge + 1];
    ContentionJob& job = out.jobs.emplace_back();
    job.name = jobs[j].name;
    job.gpus = jobs[j].layout.world_size();
    job.step_alone_s = demand[j]->step_s;
    for (size_t a = 0; a < kAlignments; ++a) {
      job.beside[a].step_s = job.step_alone_s;
      job.background[a].source =
          "the other running jobs (" + std::string(to_string(static_cast<Alignment>(a))) + " alignment)";
      job.parts[a].assign(n, 0);
    }
  }
  std::partial_sum(begin.begin(), begin.end(), begin.begin());
  std::vector<Entry> entries(begin.back());
  {
    std::vector<uint32_t> next(begin.begin(), begin.end() - 1);
    for (size_t j = 0; j < n; ++j)
      for (size_t k = 0; k < demand[j]->links.size(); ++k)
        entries[next[demand[j]->links[k].edge]++] = {static_cast<uint32_t>(j), static_cast<uint32_t>(k),
                                                     static_cast<double>(demand[j]->flows[k]), 0};
  }

  for (size_t a = 0; a < kAlignments; ++a) {
    const Alignment align = static_cast<Alignment>(a);
    for (EdgeId e = 0; e < c.num_edges(); ++e) {
      if (begin[e + 1] - begin[e] < 2) continue;
      Entry* first = entries.data() + begin[e];
      const size_t count = begin[e + 1] - begin[e];
      double flows = 0;
      for (size_t k = 0; k < count; ++k) {
        const LinkUse& u = demand[first[k].job]->links[first[k].at];
        first[k].demand = demand_of(u.utilization, u.peak, align);
        flows += first[k].flows;
      }
      sort_by_demand_per_flow(first, first + count);
      for (size_t self = 0; self < count; ++self) {
        const Entry& me = first[self];
        ContentionJob& job = out.jobs[me.job];
        const auto [level, taken] = fair_share(me.flows, flows - me.flows, first, count, self);
        if (taken <= 0) continue;
        job.background[a].utilization.emplace_back(e, taken);
        // busy × part / (1 − taken) is each other's part in the busy time this job's link gains.
        const double scale = demand[me.job]->links[me.at].busy_us / (1 - taken);
        std::vector<double>& parts = job.parts[a];
        for (size_t k = 0; k < count; ++k)
          if (k != self) parts[first[k].job] += scale * part_of(first[k], level);
      }
    }
  }
  for (size_t j = 0; j < n; ++j) {
    if (!rescore.empty() && !rescore[j]) continue;
    const ContentionJob& job = out.jobs[j];
    Result<std::vector<double>> steps =
        steps_beside(c, r, jobs[j], *demand[j], options, {&job.background[0], &job.background[1]});
    RETURN_IF_ERROR(steps);
    for (size_t a = 0; a < kAlignments; ++a) contention_set_step(out, j, static_cast<Alignment>(a), (*steps)[a]);
  }

  for (EdgeId e = 0; e < c.num_edges(); ++e) {
    if (begin[e] == begin[e + 1]) continue;
    ContendedLink l;
    l.edge = e;
    for (uint32_t k = begin[e]; k < begin[e + 1]; ++k) {
      const Entry& x = entries[k];
      const LinkUse& u = demand[x.job]->links[x.at];
      l.jobs.push_back({x.job, static_cast<int>(x.flows), u.utilization, u.peak, u.peak_phase, u.phase_utilization});
      l.utilization += u.utilization;
      l.peak += u.peak;
      for (size_t p = 0; p < kPhases; ++p) l.phase_utilization[p] += u.phase_utilization[p];
    }
    std::stable_sort(l.jobs.begin(), l.jobs.end(), [](const JobOnLink& x, const JobOnLink& y) {
      return x.peak != y.peak ? x.peak > y.peak : x.job < y.job;
    });
    out.meeting += l.jobs.size() >= 2;
    out.links.push_back(std::move(l));
  }
  std::stable_sort(out.links.begin(), out.links.end(), [](const ContendedLink& x, const ContendedLink& y) {
    if ((x.jobs.size() >= 2) != (y.jobs.size() >= 2)) return x.jobs.size() >= 2;
    return x.peak > y.peak;
  });
  return out;
}

}  // namespace topoplan

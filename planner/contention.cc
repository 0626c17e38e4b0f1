#include "planner/contention.h"

#include <algorithm>
#include <numeric>

namespace topoplan {
namespace {

// What one job puts on the links alone, by edge.
struct Demand {
  double step_s = 0;
  std::vector<LinkUse> links;
  std::vector<int> flows;  // parallel to links
};

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

double step_of(const ScoreState& s) { return s.traffic().compute.step_us / 1e6 + s.exposed_us() / 1e6; }

}  // namespace

std::string_view to_string(Alignment a) { return a == Alignment::average ? "average" : "worst"; }

std::vector<double> fair_parts(int self_flows, const std::vector<FlowDemand>& others) {
  // Fill the jobs that want least per flow first: each gets its demand while that is below an
  // equal split of what is left among the flows still wanting, and the rest get that split.
  std::vector<size_t> order(others.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return others[a].demand * others[b].flows < others[b].demand * others[a].flows;
  });
  double room = 1;
  double weight = self_flows;
  for (const FlowDemand& o : others) weight += o.flows;
  std::vector<double> part(others.size(), 0);
  for (size_t k : order) {
    const double level = room / weight;  // per flow
    part[k] = std::min(others[k].demand, others[k].flows * level);
    room -= part[k];
    weight -= others[k].flows;
  }
  return part;
}

Result<Contention> contention_compute(const Cluster& c, const Router& r, const std::vector<RunningJob>& jobs,
                                      const ScoreOptions& options) {
  ScoreOptions alone = options;
  alone.fabric = FabricMode::idle;
  alone.background = nullptr;
  Contention out;
  std::vector<Demand> demand(jobs.size());
  // Per edge, the jobs loading it and where in their links.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> on_edge(c.num_edges());
  for (size_t j = 0; j < jobs.size(); ++j) {
    const RunningJob& job = jobs[j];
    Result<std::unique_ptr<ScoreState>> s = ScoreState::make(c, r, job.job, job.layout, alone);
    if (!s) return Error{job.where + " (" + job.name + "): " + s.error()};
    Demand& d = demand[j];
    d.step_s = step_of(**s);
    d.links = link_uses(**s);
    d.flows = flows_of(r, **s, d.links, c.num_edges());
    for (size_t k = 0; k < d.links.size(); ++k)
      on_edge[d.links[k].edge].emplace_back(static_cast<uint32_t>(j), static_cast<uint32_t>(k));
    out.jobs.push_back({job.name, job.layout.world_size(), d.step_s, {}});
  }

  for (size_t a = 0; a < kAlignments; ++a) {
    const Alignment align = static_cast<Alignment>(a);
    auto asks = [&](const LinkUse& l) {
      return std::clamp(align == Alignment::average ? l.utilization : l.peak, 0.0, 1.0);
    };
    for (size_t j = 0; j < jobs.size(); ++j) {
      const Demand& d = demand[j];
      Background bg;
      bg.source = "the other running jobs (" + std::string(to_string(align)) + " alignment)";
      std::vector<double> weight(jobs.size(), 0);  // each other job's part in the added busy time
      std::vector<FlowDemand> others;
      std::vector<size_t> who;
      for (size_t k = 0; k < d.links.size(); ++k) {
        const LinkUse& mine = d.links[k];
        others.clear();
        who.clear();
        for (auto [o, at] : on_edge[mine.edge])
          if (o != j) others.push_back({demand[o].flows[at], asks(demand[o].links[at])}), who.push_back(o);
        if (others.empty()) continue;
        const std::vector<double> part = fair_parts(d.flows[k], others);
        const double taken = std::accumulate(part.begin(), part.end(), 0.0);
        if (taken <= 0) continue;
        bg.utilization.emplace_back(mine.edge, taken);
        // The link's busy time for this job grows by busy × taken / (1 − taken), split by part.
        for (size_t o = 0; o < others.size(); ++o) weight[who[o]] += mine.busy_us * part[o] / (1 - taken);
      }
      JobBeside& beside = out.jobs[j].beside[a];
      beside.step_s = d.step_s;
      if (!bg.utilization.empty()) {
        ScoreOptions with = alone;
        with.background = &bg;
        Result<std::unique_ptr<ScoreState>> s = ScoreState::make(c, r, jobs[j].job, jobs[j].layout, with);
        if (!s) return Error{jobs[j].where + " (" + jobs[j].name + "): " + s.error()};
        beside.step_s = step_of(**s);
      }
      beside.slowdown = d.step_s > 0 ? beside.step_s / d.step_s : 1;
      const double added = beside.step_s - d.step_s;
      const double total = std::accumulate(weight.begin(), weight.end(), 0.0);
      if (added > 0 && total > 0)
        for (size_t o = 0; o < jobs.size(); ++o)
          if (weight[o] > 0) beside.causes.push_back({o, weight[o] / total, added * weight[o] / total});
      std::stable_sort(beside.causes.begin(), beside.causes.end(),
                       [](const ContentionCause& x, const ContentionCause& y) { return x.share > y.share; });
    }
  }

  for (EdgeId e = 0; e < c.num_edges(); ++e) {
    if (on_edge[e].empty()) continue;
    ContendedLink l;
    l.edge = e;
    for (auto [j, at] : on_edge[e]) {
      const LinkUse& u = demand[j].links[at];
      l.jobs.push_back({j, demand[j].flows[at], u.utilization, u.peak, u.peak_phase});
      l.utilization += u.utilization;
      l.peak += u.peak;
    }
    std::stable_sort(l.jobs.begin(), l.jobs.end(),
                     [](const JobOnLink& x, const JobOnLink& y) { return x.peak > y.peak; });
    out.meeting += l.jobs.size() >= 2;
    out.links.push_back(std::move(l));
  }
  std::stable_sort(out.links.begin(), out.links.end(), [](const ContendedLink& x, const ContendedLink& y) {
    if (x.jobs.size() >= 2 != (y.jobs.size() >= 2)) return x.jobs.size() >= 2;
    return x.peak > y.peak;
  });
  return out;
}

}  // namespace topoplan

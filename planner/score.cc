#include "planner/score.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <unordered_map>

#include "cost/transfers.h"
#include "topology/units.h"

namespace topoplan {
namespace {

std::string fmt(const char* format, double x) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, x);
  return buf;
}

// Small ordinal maps: groups are tens to hundreds of ranks, so a linear scan beats hashing.
int ordinal(std::vector<int>& seen, int value) {
  for (size_t i = 0; i < seen.size(); ++i)
    if (seen[i] == value) return static_cast<int>(i);
  seen.push_back(value);
  return static_cast<int>(seen.size()) - 1;
}

// Groups with equal signatures are the same collective to NCCL: the same local GPUs on the same
// kind of hosts, split the same way over hosts, NVLink domains and sites. The fabric between
// them is not in it: the contended time below reads each group's own links.
std::string signature(const Cluster& c, const std::vector<VertexId>& gpus) {
  std::vector<int> hosts, domains, sites;
  std::string key;
  key.reserve(gpus.size() * 8);
  for (VertexId v : gpus) {
    const Device& d = c.device(v);
    const int h = ordinal(hosts, d.host);
    if (static_cast<size_t>(h) + 1 == hosts.size()) key += c.hosts()[static_cast<size_t>(d.host)].node_type + ":";
    for (int x : {h, static_cast<int>(d.local_index), ordinal(domains, d.scaleup_domain), ordinal(sites, d.site)}) {
      key += std::to_string(x);
      key += ',';
    }
  }
  return key;
}

std::string hosts_of(const Cluster& c, const std::vector<VertexId>& gpus) {
  std::vector<int> hosts;
  for (VertexId v : gpus) ordinal(hosts, c.device(v).host);
  std::string out;
  const size_t shown = std::min<size_t>(hosts.size(), 4);
  for (size_t i = 0; i < shown; ++i) {
    out += (i == 0 ? "" : i + 1 == hosts.size() ? " and " : ", ");
    out += c.hosts()[static_cast<size_t>(hosts[i])].name;
  }
  if (hosts.size() > shown) out += " and " + std::to_string(hosts.size() - shown) + " more hosts";
  return out;
}

bool one_domain(const Cluster& c, const std::vector<VertexId>& gpus) {
  const Device& first = c.device(gpus.front());
  for (VertexId v : gpus) {
    const Device& d = c.device(v);
    const bool same = first.scaleup_domain >= 0 ? d.scaleup_domain == first.scaleup_domain : d.host == first.host;
    if (!same) return false;
  }
  return true;
}

std::string plural_op(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce: return "all-reduces";
    case CollectiveOp::all_gather: return "all-gathers";
    case CollectiveOp::reduce_scatter: return "reduce-scatters";
    case CollectiveOp::alltoall: return "all-to-alls";
    case CollectiveOp::sendrecv: return "sends";
    default: return std::string(to_string(op)) + "s";
  }
}

int severity_rank(const std::string& s) { return s == "critical" ? 0 : s == "warning" ? 1 : 2; }

// A group alone: NCCL's choice and time, and the busiest link's busy time per byte that the
// choice was timed on.
struct Alone {
  CollectivePrediction prediction;
  double peak_busy_per_byte = 0;
};

// Every group of one item loaded at one byte: the links they share, and each group's own links
// (single edges and fabric segments, sorted, without repeats).
struct Pattern {
  Pattern(const Router& r, const Calibration& cal) : router(r), total(r, cal) {}
  const Router& router;
  LinkLoad total;
  std::vector<Touched> own;  // per group

  struct Peak {
    double busy_us = 0;
    EdgeId edge = 0;
  };
  // The group's busiest link under every group's load; segments' peaks are found once.
  Peak peak(size_t group) {
    Peak best;
    auto consider = [&](EdgeId e) {
      if (double b = total.busy_us(e); b > best.busy_us) best = {b, e};
    };
    for (EdgeId e : own[group].edges) consider(e);
    for (uint32_t id : own[group].segments) {
      auto [it, fresh] = segment_peak_.try_emplace(id);
      if (fresh) {
        Peak p;
        for (const Hop& h : *router.segment(id).hops)
          if (double b = total.busy_us(h.edge); b > p.busy_us) p = {b, h.edge};
        it->second = p;
      }
      if (it->second.busy_us > best.busy_us) best = it->second;
    }
    return best;
  }
  // Every edge the group loads, segments expanded.
  template <typename F>
  void for_each_edge(size_t group, F f) const {
    for (EdgeId e : own[group].edges) f(e);
    for (uint32_t id : own[group].segments)
      for (const Hop& h : *router.segment(id).hops) f(h.edge);
  }
  // How many groups load edge `e`.
  int groups_on(EdgeId e) const {
    std::unordered_map<uint32_t, bool> on;  // segment -> has e
    int n = 0;
    for (const Touched& t : own) {
      bool hit = std::binary_search(t.edges.begin(), t.edges.end(), e);
      for (size_t k = 0; k < t.segments.size() && !hit; ++k) {
        auto [it, fresh] = on.try_emplace(t.segments[k]);
        if (fresh) {
          const std::vector<Hop>& hops = *router.segment(t.segments[k]).hops;
          it->second = std::any_of(hops.begin(), hops.end(), [e](const Hop& h) { return h.edge == e; });
        }
        hit = it->second;
      }
      n += hit;
    }
    return n;
  }

 private:
  std::unordered_map<uint32_t, Peak> segment_peak_;
};

template <typename T>
void sort_unique(std::vector<T>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  v.shrink_to_fit();
}

class Scorer {
 public:
  Scorer(const Cluster& c, const Router& r, const Job& job, const Layout& layout, const ScoreOptions& opt, RankGroups groups)
      : c_(c), r_(r), job_(job), layout_(layout), opt_(opt), model_(c, r, *opt.tuning, *opt.calibration),
        scratch_(r, *opt.calibration), groups_(std::move(groups)) {}

  Result<JobScore> run(StepTraffic traffic);

 private:
  Result<const std::vector<std::vector<VertexId>>*> gpu_groups(const TrafficItem& item);
  Result<const Alone*> alone(const TrafficItem& item, const std::vector<VertexId>& gpus);
  // The group's transfers for `algo` at one byte, added to `into`.
  Result<bool> load(const TrafficItem& item, const std::vector<VertexId>& gpus, NcclAlgo algo, LinkLoad& into,
                    Touched* touched = nullptr);
  Result<ItemScore> score_item(const TrafficItem& item, const std::vector<std::vector<VertexId>>& gpus);
  void find(const ItemScore& s, const std::vector<std::vector<VertexId>>& gpus);
  void exposure(JobScore& out) const;
  void links(JobScore& out) const;

  const Cluster& c_;
  const Router& r_;
  const Job& job_;
  const Layout& layout_;
  const ScoreOptions& opt_;
  CollectiveModel model_;
  LinkLoad scratch_;
  RankGroups groups_;
  std::map<std::string, std::vector<std::vector<VertexId>>> gpu_groups_;
  std::unordered_map<std::string, Alone> alone_;
  std::map<std::string, std::unique_ptr<Pattern>> patterns_;
  Pattern* pattern_ = nullptr;  // of the item being scored
  std::vector<double> step_bytes_, step_busy_us_;
  std::vector<EdgeId> step_loaded_;
  std::vector<Finding> findings_;
  std::map<std::string, int> span_reported_;  // group token -> findings made
  struct Dci {
    int groups = 0, of = 0;
    double per_call_us = 0, per_step_us = 0;
    std::string sites;
  };
  std::array<Dci, kTrafficKinds> dci_{};
};

Result<const std::vector<std::vector<VertexId>>*> Scorer::gpu_groups(const TrafficItem& item) {
  const std::string key = item.group + (item.stage_pairs ? "/pairs" : "");
  if (auto it = gpu_groups_.find(key); it != gpu_groups_.end()) return &it->second;
  Result<GroupList> ranks = groups_.groups(item.group);
  if (!ranks) return Error{ranks.error()};
  std::vector<std::vector<VertexId>> out;
  auto gpus_of = [&](std::initializer_list<int> rs) {
    std::vector<VertexId> g;
    for (int rank : rs) g.push_back(layout_.gpu_of_rank[static_cast<size_t>(rank)]);
    return g;
  };
  for (const std::vector<int>& g : *ranks) {
    if (!item.stage_pairs) {
      std::vector<VertexId> v;
      for (int rank : g) v.push_back(layout_.gpu_of_rank[static_cast<size_t>(rank)]);
      out.push_back(std::move(v));
      continue;
    }
    // Neighbouring stages; the interleaved schedule also sends from the last stage to the first.
    for (size_t k = 0; k + 1 < g.size(); ++k) out.push_back(gpus_of({g[k], g[k + 1]}));
    if (job_.parallel.virtual_pipeline_stages > 1 && g.size() > 2) out.push_back(gpus_of({g.back(), g.front()}));
  }
  return &gpu_groups_.emplace(key, std::move(out)).first->second;
}

Result<bool> Scorer::load(const TrafficItem& item, const std::vector<VertexId>& gpus, NcclAlgo algo, LinkLoad& into,
                          Touched* touched) {
  if (item.op == CollectiveOp::sendrecv) return into.add(ring_of_sends(gpus, 1.0), touched);  // PP: many pairs
  Result<CommGroup> g = comm_group_make(c_, r_, gpus);
  if (!g) return Error{g.error()};
  Result<std::vector<Transfer>> t = collective_transfers(*g, item.op, algo, 1.0);
  if (!t) return Error{t.error()};
  return into.add(*t, touched);
}

Result<const Alone*> Scorer::alone(const TrafficItem& item, const std::vector<VertexId>& gpus) {
  std::string key = signature(c_, gpus) + "|" + std::string(to_string(item.op)) + "|" + fmt("%.17g", item.bytes) + "|" +
                    (item.algo ? std::string(to_string(*item.algo)) : "auto");
  if (auto it = alone_.find(key); it != alone_.end()) return &it->second;
  CollectiveRequest req;
  req.op = item.op;
  req.bytes = item.bytes;
  req.gpus = gpus;
  req.algo = item.algo;
  Result<CollectivePrediction> p = model_.predict(req);
  if (!p) return Error{p.error()};
  Alone a;
  a.prediction = std::move(*p);
  scratch_.clear();
  if (Result<bool> ok = load(item, gpus, a.prediction.algo, scratch_); !ok) return Error{ok.error()};
  a.peak_busy_per_byte = scratch_.busiest().busy_us;
  return &alone_.emplace(std::move(key), std::move(a)).first->second;
}

Result<ItemScore> Scorer::score_item(const TrafficItem& item, const std::vector<std::vector<VertexId>>& gpus) {
  ItemScore s;
  s.item = item;
  s.groups = static_cast<int>(gpus.size());
  std::vector<const Alone*> alone_of;
  std::string algos;
  bool rings = true;
  for (const std::vector<VertexId>& g : gpus) {
    Result<const Alone*> a = alone(item, g);
    if (!a) return Error{a.error()};
    alone_of.push_back(*a);
    algos += static_cast<char>('a' + static_cast<int>((*a)->prediction.algo));
    rings = rings && (*a)->prediction.algo == NcclAlgo::ring;
  }
  // A ring all-gather and a ring reduce-scatter put the same bytes on the same hops.
  const bool ag_rs = item.op == CollectiveOp::all_gather || item.op == CollectiveOp::reduce_scatter;
  const std::string op = rings && ag_rs ? "ring ag/rs" : std::string(to_string(item.op));
  auto [it, fresh] = patterns_.try_emplace(item.group + (item.stage_pairs ? "/pairs|" : "|") + op + "|" + algos);
  if (fresh) {
    it->second = std::make_unique<Pattern>(r_, *opt_.calibration);
    Pattern& p = *it->second;
    p.own.resize(gpus.size());
    for (size_t i = 0; i < gpus.size(); ++i) {
      Touched& t = p.own[i];
      if (Result<bool> ok = load(item, gpus[i], alone_of[i]->prediction.algo, p.total, &t); !ok) return Error{ok.error()};
      sort_unique(t.edges);
      sort_unique(t.segments);
    }
  }
  Pattern& pat = *it->second;
  pattern_ = &pat;

  // Each group drains its links shared with every other group of the item: its transfer time
  // alone grows by how much more its busiest shared link carries than the link it was timed on.
  double worst = -1;
  for (size_t i = 0; i < gpus.size(); ++i) {
    const Alone& a = *alone_of[i];
    const CollectivePrediction& p = a.prediction;
    const auto [shared, hot] = pat.peak(i);
    const double ratio = a.peak_busy_per_byte > 0 ? shared / a.peak_busy_per_byte : 1;
    const double transfer = p.channel_bound ? std::max(p.transfer_us, shared * item.bytes) : p.transfer_us * ratio;
    const double contended = p.latency_us + transfer;
    if (contended > worst) {
      worst = contended;
      s.slowest_group = static_cast<int>(i);
      s.algorithm = p.algorithm;
      s.proto = p.proto;
      s.alone_us = p.time_us;
      s.contended_us = contended;
      s.dci_us = p.dci_us;
      s.has_hot_edge = shared > 0;
      s.hot_edge = hot;
    }
  }
  if (s.has_hot_edge) {
    s.hot_edge_bytes = pat.total.bytes(s.hot_edge) * item.bytes;
    s.hot_edge_groups = pat.groups_on(s.hot_edge);
  }
  s.time_us = item.calls * s.contended_us;
  for (EdgeId e : pat.total.loaded()) {
    if (step_bytes_[e] == 0 && step_busy_us_[e] == 0) step_loaded_.push_back(e);
    step_bytes_[e] += pat.total.bytes(e) * item.bytes * item.calls;
    step_busy_us_[e] += pat.total.busy_us(e) * item.bytes * item.calls;
  }
  return s;
}

// Plain-words findings for one scored item.
void Scorer::find(const ItemScore& s, const std::vector<std::vector<VertexId>>& gpus) {
  const TrafficItem& item = s.item;
  const std::string kind(to_string(item.kind));
  const std::string what = std::string(to_string(item.op)) + " (" + item.what + ")";

  // Tensor parallelism belongs inside one NVLink domain.
  if ((item.group == "tp" || item.group == "expert.tp") && !span_reported_.count(item.group)) {
    int spanning = 0;
    for (size_t i = 0; i < gpus.size(); ++i) {
      if (one_domain(c_, gpus[i])) continue;
      if (++spanning > opt_.findings_per_kind) continue;
      const Alone* a = *alone(item, gpus[i]);
      const CollectivePrediction::Bottleneck& b = a->prediction.bottleneck;
      findings_.push_back({"critical", kind, item.group + " " + std::to_string(i),
                           "TP group " + std::to_string(i) + " spans " + hosts_of(c_, gpus[i]) + ": its " +
                               plural_op(item.op) + " cross " + std::string(to_string(b.kind)) + " at " +
                               fmt("%.1f", b.bw_gbps) + " GB/s instead of NVLink"});
    }
    if (spanning > opt_.findings_per_kind)
      findings_.push_back({"critical", kind, "",
                           std::to_string(spanning - opt_.findings_per_kind) + " more of the " +
                               std::to_string(gpus.size()) + " " + item.group + " groups span NVLink domains"});
    span_reported_[item.group] = spanning;
  }

  // Where the slowest group's traffic waits.
  if (s.has_hot_edge) {
    const std::vector<VertexId>& g = gpus[static_cast<size_t>(s.slowest_group)];
    const double slowdown = s.alone_us > 0 ? s.contended_us / s.alone_us : 1;
    // All-to-all incast: the busiest link into a NIC, when it is (one of) the group's bottleneck.
    EdgeId into_nic = 0;
    double into_busy = 0;
    if (item.op == CollectiveOp::alltoall)
      pattern_->for_each_edge(static_cast<size_t>(s.slowest_group), [&](EdgeId e) {
        if (c_.device(c_.target(e)).kind == DeviceKind::nic && pattern_->total.busy_us(e) > into_busy) {
          into_busy = pattern_->total.busy_us(e);
          into_nic = e;
        }
      });
    const int host = into_busy > 0 ? c_.device(c_.target(into_nic)).host : -1;
    int senders = 0;
    for (VertexId v : g) senders += host >= 0 && c_.device(v).host != host;
    if (senders > 1 && into_busy >= 0.99 * pattern_->total.busy_us(s.hot_edge)) {
      findings_.push_back({"warning", kind, item.group + " " + std::to_string(s.slowest_group),
                           "EP all-to-all: " + std::to_string(senders) + " senders target " +
                               c_.hosts()[static_cast<size_t>(host)].name + "'s NIC (" + c_.edge_name(into_nic) +
                               "): each " + item.what + " call takes " + format_duration(s.contended_us * 1e-6) +
                               (slowdown > 1.05 ? " (" + fmt("%.1f", slowdown) + "x its time alone)" : "")});
    } else if (slowdown >= 1.25) {
      findings_.push_back({"warning", kind, item.group + " " + std::to_string(s.slowest_group),
                           kind + " " + what + ": " + c_.edge_name(s.hot_edge) + " carries " +
                               std::to_string(s.hot_edge_groups) + " groups at once; a call takes " +
                               format_duration(s.contended_us * 1e-6) + " instead of " + format_duration(s.alone_us * 1e-6) + " alone (" +
                               fmt("%.1f", slowdown) + "x)"});
    }
  }

  // Cross-site traffic other than data parallelism's.
  if (item.kind != TrafficKind::dp) {
    Dci& d = dci_[static_cast<size_t>(item.kind)];
    int crossing = 0;
    double per_call = 0;
    for (size_t i = 0; i < gpus.size(); ++i) {
      const Touched& own = pattern_->own[i];
      bool crosses = std::any_of(own.edges.begin(), own.edges.end(),
                                 [&](EdgeId e) { return c_.link(e).kind == LinkKind::DCI; }) ||
                     std::any_of(own.segments.begin(), own.segments.end(),
                                 [&](uint32_t id) { return r_.segment(id).crosses_dci; });
      if (!crosses) continue;
      if (d.sites.empty())
        pattern_->for_each_edge(i, [&](EdgeId e) {
          if (c_.link(e).kind == LinkKind::DCI && d.sites.empty())
            d.sites = c_.sites()[static_cast<size_t>(c_.device(c_.source(e)).site)] + " and " +
                      c_.sites()[static_cast<size_t>(c_.device(c_.target(e)).site)];
        });
      ++crossing;
      per_call = std::max(per_call, (*alone(item, gpus[i]))->prediction.dci_us);
    }
    if (crossing) {
      d.groups = std::max(d.groups, crossing);
      d.of = std::max(d.of, static_cast<int>(gpus.size()));
      d.per_call_us = std::max(d.per_call_us, per_call);
      d.per_step_us += per_call * item.calls;
    }
  }
}

void Scorer::exposure(JobScore& out) const {
  const StepTraffic& t = out.traffic;
  std::vector<double> hideable(t.windows.size(), 0);
  for (const ItemScore& s : out.items)
    if (s.item.window >= 0) hideable[static_cast<size_t>(s.item.window)] += (s.item.calls - s.item.unhidden_calls) * s.contended_us;
  for (ItemScore& s : out.items) {
    const double unhidden = s.item.window >= 0 ? s.item.unhidden_calls : s.item.calls;
    s.exposed_us = unhidden * s.contended_us;
    if (s.item.window >= 0) {
      const double h = hideable[static_cast<size_t>(s.item.window)];
      const double left = std::max(0.0, h - t.windows[static_cast<size_t>(s.item.window)].us);
      if (h > 0) s.exposed_us += (s.item.calls - s.item.unhidden_calls) * s.contended_us * left / h;
    }
    KindScore& k = out.by_kind[static_cast<size_t>(s.item.kind)];
    k.alone_s += s.item.calls * s.alone_us / 1e6;
    k.time_s += s.time_us / 1e6;
    k.exposed_s += s.exposed_us / 1e6;
    out.comm_s += s.time_us / 1e6;
    out.exposed_comm_s += s.exposed_us / 1e6;
  }
  out.compute_s = t.compute.step_us / 1e6;
  out.step_s = out.compute_s + out.exposed_comm_s;
}

void Scorer::links(JobScore& out) const {
  for (EdgeId e : step_loaded_)
    out.links.push_back({e, step_bytes_[e], step_busy_us_[e], out.step_s > 0 ? step_busy_us_[e] / (out.step_s * 1e6) : 0});
  std::stable_sort(out.links.begin(), out.links.end(), [](const LinkUse& a, const LinkUse& b) {
    return a.utilization != b.utilization ? a.utilization > b.utilization : a.edge < b.edge;
  });
}

Result<JobScore> Scorer::run(StepTraffic traffic) {
  step_bytes_.assign(c_.num_edges(), 0);
  step_busy_us_.assign(c_.num_edges(), 0);
  JobScore out;
  out.job = job_.name;
  out.layout = layout_.source;
  out.ranks = layout_.world_size();
  for (const TrafficItem& item : traffic.items) {
    Result<const std::vector<std::vector<VertexId>>*> gpus = gpu_groups(item);
    if (!gpus) return Error{gpus.error()};
    if ((*gpus)->empty() || (*gpus)->front().size() < 2) continue;
    Result<ItemScore> s = score_item(item, **gpus);
    if (!s) return Error{std::string(to_string(item.kind)) + " " + std::string(to_string(item.op)) + ": " + s.error()};
    find(*s, **gpus);
    out.items.push_back(std::move(*s));
  }
  out.traffic = std::move(traffic);
  exposure(out);
  links(out);
  for (size_t k = 0; k < kTrafficKinds; ++k) {
    const Dci& d = dci_[k];
    if (d.groups == 0) continue;
    const std::string kind(to_string(static_cast<TrafficKind>(k)));
    findings_.push_back({k == static_cast<size_t>(TrafficKind::pp) ? "warning" : "critical", kind, "",
                         kind + " traffic of " + std::to_string(d.groups) + " of " + std::to_string(d.of) +
                             " groups crosses the DCI between " + d.sites + ": +" + format_duration(d.per_call_us * 1e-6) +
                             " propagation per call, +" + format_duration(d.per_step_us * 1e-6) + " per step"});
  }
  for (size_t k = 0; k < kTrafficKinds; ++k) {
    const double exposed = out.by_kind[k].exposed_s;
    if (out.step_s > 0 && exposed / out.step_s >= 0.05)
      findings_.push_back({"info", std::string(to_string(static_cast<TrafficKind>(k))), "",
                           format_duration(exposed) + " of " + std::string(to_string(static_cast<TrafficKind>(k))) +
                               " communication per step is exposed (" + fmt("%.0f", 100 * exposed / out.step_s) +
                               "% of the step)"});
  }
  std::stable_sort(findings_.begin(), findings_.end(), [](const Finding& a, const Finding& b) {
    return severity_rank(a.severity) < severity_rank(b.severity);
  });
  out.findings = std::move(findings_);
  return out;
}

}  // namespace

Result<JobScore> score_job(const Cluster& cluster, const Router& router, const Job& job, const Layout& layout,
                           const ScoreOptions& options) {
  if (layout.world_size() != job_ranks(job))
    return Error{layout.source + ": the layout places " + std::to_string(layout.world_size()) + " ranks, the job has " +
                 std::to_string(job_ranks(job))};
  if (layout.world_size() == 0) return Error{"the job has no ranks"};
  Result<RankGroups> groups = RankGroups::make(job_parallel_sizes(job), job.parallel.order);
  if (!groups) return Error{groups.error()};
  Result<ComputeEstimate> compute = compute_estimate(job, cluster.device(layout.gpu_of_rank.front()).model);
  if (!compute) return Error{compute.error()};
  Result<StepTraffic> traffic = step_traffic(job, *compute);
  if (!traffic) return Error{traffic.error()};
  Scorer scorer(cluster, router, job, layout, options, std::move(*groups));
  return scorer.run(std::move(*traffic));
}

}  // namespace topoplan

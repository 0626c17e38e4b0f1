#include "planner/score.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <unordered_map>

#include "topology/units.h"

namespace topoplan {
namespace {

std::string fmt(const char* format, double x) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, x);
  return buf;
}

std::vector<int> host_ordinals(const Cluster& c, const std::vector<VertexId>& gpus) {
  std::vector<int> hosts;
  for (VertexId v : gpus)
    if (std::find(hosts.begin(), hosts.end(), c.device(v).host) == hosts.end()) hosts.push_back(c.device(v).host);
  return hosts;
}

std::string hosts_of(const Cluster& c, const std::vector<VertexId>& gpus) {
  const std::vector<int> hosts = host_ordinals(c, gpus);
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

// Calls `f` for every edge a group loads, segments expanded.
template <typename F>
void for_each_edge(const Router& r, const Touched& t, F f) {
  for (EdgeId e : t.edges) f(e);
  for (uint32_t id : t.segments)
    for (const Hop& h : *r.segment(id).hops) f(h.edge);
}

class Reporter {
 public:
  Reporter(const Cluster& c, const Router& r, const ScoreState& state, const ScoreOptions& opt)
      : c_(c), r_(r), state_(state), opt_(opt), scratch_(r, *opt.calibration, &state.share()) {}

  Result<JobScore> run(const Job& job);

 private:
  Result<ItemScore> score_item(size_t index);
  void find(size_t index, const ItemScore& s);

  const Cluster& c_;
  const Router& r_;
  const ScoreState& state_;
  const ScoreOptions& opt_;
  LinkLoad scratch_;
  std::vector<Finding> findings_;
  std::map<std::string, int> span_reported_;  // group token -> findings made
  struct Dci {
    int groups = 0, of = 0;
    double per_call_us = 0, per_step_us = 0;
    std::string sites;
  };
  std::array<Dci, kTrafficKinds> dci_{};
};

Result<ItemScore> Reporter::score_item(size_t index) {
  const TrafficItem& item = state_.traffic().items[index];
  const ItemTime& t = state_.item_time(index);
  const size_t g = static_cast<size_t>(t.slowest_group);
  const CollectivePrediction& p = state_.item_alone(index, g);
  ItemScore s;
  s.item = item;
  s.groups = static_cast<int>(state_.item_groups(index).size());
  s.slowest_group = t.slowest_group;
  s.algorithm = p.algorithm;
  s.proto = p.proto;
  s.dci_us = p.dci_us;
  s.contended_us = t.contended_us;
  // Its own time alone: NCCL's time for its shape, on the links this group really crosses.
  if (Result<bool> ok = state_.group_load(index, g, scratch_); !ok) return Error{ok.error()};
  s.alone_us = contended_us(p, state_.item_alone_peak(index, g), scratch_.busiest().busy_us, item.bytes);
  s.has_hot_edge = t.has_hot_edge;
  s.hot_edge = t.hot_edge;
  if (s.has_hot_edge) {
    s.hot_edge_bytes = state_.item_load(index).bytes(s.hot_edge) * item.bytes;
    s.hot_edge_groups = state_.groups_on(index, s.hot_edge);
  }
  s.time_us = item.calls * s.contended_us;
  s.exposed_us = t.exposed_us;
  return s;
}

// Plain-words findings for one scored item.
void Reporter::find(size_t index, const ItemScore& s) {
  const TrafficItem& item = s.item;
  const std::vector<std::vector<VertexId>>& gpus = state_.item_groups(index);
  const LinkLoad& total = state_.item_load(index);
  const std::string kind(to_string(item.kind));
  const std::string what = std::string(to_string(item.op)) + " (" + item.what + ")";

  // Tensor parallelism belongs inside one NVLink domain.
  if ((item.group == "tp" || item.group == "expert.tp") && !span_reported_.count(item.group)) {
    int spanning = 0;
    for (size_t i = 0; i < gpus.size(); ++i) {
      if (one_domain(c_, gpus[i])) continue;
      if (++spanning > opt_.findings_per_kind) continue;
      const CollectivePrediction::Bottleneck& b = state_.item_alone(index, i).bottleneck;
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
      for_each_edge(r_, state_.item_touched(index, static_cast<size_t>(s.slowest_group)), [&](EdgeId e) {
        if (c_.device(c_.target(e)).kind == DeviceKind::nic && total.busy_us(e) > into_busy) {
          into_busy = total.busy_us(e);
          into_nic = e;
        }
      });
    const int host = into_busy > 0 ? c_.device(c_.target(into_nic)).host : -1;
    int senders = 0;
    for (VertexId v : g) senders += host >= 0 && c_.device(v).host != host;
    if (senders > 1 && into_busy >= 0.99 * total.busy_us(s.hot_edge)) {
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
      const Touched& own = state_.item_touched(index, i);
      bool crosses = std::any_of(own.edges.begin(), own.edges.end(),
                                 [&](EdgeId e) { return c_.link(e).kind == LinkKind::DCI; }) ||
                     std::any_of(own.segments.begin(), own.segments.end(),
                                 [&](uint32_t id) { return r_.segment(id).crosses_dci; });
      if (!crosses) continue;
      if (d.sites.empty())
        for_each_edge(r_, own, [&](EdgeId e) {
          if (c_.link(e).kind == LinkKind::DCI && d.sites.empty())
            d.sites = c_.sites()[static_cast<size_t>(c_.device(c_.source(e)).site)] + " and " +
                      c_.sites()[static_cast<size_t>(c_.device(c_.target(e)).site)];
        });
      ++crossing;
      per_call = std::max(per_call, state_.item_alone(index, i).dci_us);
    }
    if (crossing) {
      d.groups = std::max(d.groups, crossing);
      d.of = std::max(d.of, static_cast<int>(gpus.size()));
      d.per_call_us = std::max(d.per_call_us, per_call);
      d.per_step_us += per_call * item.calls;
    }
  }
}

Result<JobScore> Reporter::run(const Job& job) {
  JobScore out;
  out.job = job.name;
  out.layout = state_.layout().source;
  out.fabric = opt_.fabric;
  out.background = opt_.background ? opt_.background->source : "";
  out.ranks = state_.layout().world_size();
  out.traffic = state_.traffic();
  std::vector<double> step_bytes(c_.num_edges(), 0), step_busy_us(c_.num_edges(), 0);
  std::vector<EdgeId> step_loaded;
  for (size_t i = 0; i < state_.item_count(); ++i) {
    if (state_.item_groups(i).empty()) continue;
    const TrafficItem& item = out.traffic.items[i];
    Result<ItemScore> s = score_item(i);
    if (!s) return Error{std::string(to_string(item.kind)) + " " + std::string(to_string(item.op)) + ": " + s.error()};
    find(i, *s);
    const LinkLoad& load = state_.item_load(i);
    for (EdgeId e : load.loaded()) {
      if (step_bytes[e] == 0 && step_busy_us[e] == 0) step_loaded.push_back(e);
      step_bytes[e] += load.bytes(e) * item.bytes * item.calls;
      step_busy_us[e] += load.busy_us(e) * item.bytes * item.calls;
    }
    KindScore& k = out.by_kind[static_cast<size_t>(item.kind)];
    k.alone_s += item.calls * s->alone_us / 1e6;
    k.time_s += s->time_us / 1e6;
    k.exposed_s += s->exposed_us / 1e6;
    out.items.push_back(std::move(*s));
  }
  out.comm_s = state_.comm_us() / 1e6;
  out.exposed_comm_s = state_.exposed_us() / 1e6;
  out.compute_s = out.traffic.compute.step_us / 1e6;
  out.step_s = out.compute_s + out.exposed_comm_s;
  out.level_bytes = state_.level_bytes();
  out.links.reserve(step_loaded.size());
  for (EdgeId e : step_loaded)
    out.links.push_back({e, step_bytes[e], step_busy_us[e], out.step_s > 0 ? step_busy_us[e] / (out.step_s * 1e6) : 0});
  std::stable_sort(out.links.begin(), out.links.end(), [](const LinkUse& a, const LinkUse& b) {
    return a.utilization != b.utilization ? a.utilization > b.utilization : a.edge < b.edge;
  });
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

Result<JobScore> score_report(const Cluster& cluster, const Router& router, const Job& job, const ScoreState& state,
                              const ScoreOptions& options) {
  return Reporter(cluster, router, state, options).run(job);
}

Result<JobScore> score_job(const Cluster& cluster, const Router& router, const Job& job, const Layout& layout,
                           const ScoreOptions& options) {
  Result<std::unique_ptr<ScoreState>> state = ScoreState::make(cluster, router, job, layout, options);
  if (!state) return Error{state.error()};
  return score_report(cluster, router, job, **state, options);
}

}  // namespace topoplan

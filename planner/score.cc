#include "planner/score.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>

#include "base/index_list.h"
#include "base/sort_unique.h"
#include "base/units.h"
#include "base/words.h"
#include "planner/group_ref.h"
#include "planner/lower_bound.h"
#include "planner/plan.h"
#include "topology/locality.h"

namespace topoplan {
namespace {

std::string fmt(const char* format, double x) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, x);
  return buf;
}

// "h001, h002, h003 and 5 more hosts".
std::string hosts_text(const Cluster& c, const std::vector<int>& hosts) {
  std::string out;
  const size_t shown = std::min<size_t>(hosts.size(), 4);
  for (size_t i = 0; i < shown; ++i) {
    out += (i == 0 ? "" : i + 1 == hosts.size() ? " and " : ", ");
    out += c.hosts()[static_cast<size_t>(hosts[i])].name;
  }
  if (hosts.size() > shown) out += " and " + counted(static_cast<int64_t>(hosts.size() - shown), "more host");
  return out;
}

// GPUs of the NVLink domain (or, without one, the host) a GPU is in.
int domain_gpus(const Cluster& c, VertexId gpu) {
  const Device& d = c.device(gpu);
  if (d.scaleup_domain < 0) return static_cast<int>(c.hosts()[static_cast<size_t>(d.host)].gpus.size());
  int n = 0;
  for (VertexId v : c.gpus()) n += c.device(v).scaleup_domain == d.scaleup_domain;
  return n;
}

// What the group would use inside its domain: "NVLink (450 GB/s)" or "the host's PCIe".
std::string inside_text(const Cluster& c, VertexId gpu) {
  double nvl = 0;
  for (EdgeId e : c.out_edges(gpu))
    if (c.link(e).kind == LinkKind::NVL) nvl = std::max(nvl, c.link(e).bw_GBps);
  return nvl > 0 ? "NVLink (" + format_number(nvl, 1) + " GB/s)" : "the host's PCIe";
}

bool same_domain(const Cluster& c, VertexId a, VertexId b) {
  const Device &x = c.device(a), &y = c.device(b);
  return x.scaleup_domain >= 0 ? x.scaleup_domain == y.scaleup_domain : x.host == y.host;
}

bool one_domain(const Cluster& c, const std::vector<VertexId>& gpus) {
  return std::all_of(gpus.begin(), gpus.end(), [&](VertexId v) { return same_domain(c, gpus.front(), v); });
}

std::string plural_op(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce:
      return "all-reduces";
    case CollectiveOp::all_gather:
      return "all-gathers";
    case CollectiveOp::reduce_scatter:
      return "reduce-scatters";
    case CollectiveOp::alltoall:
      return "all-to-alls";
    case CollectiveOp::sendrecv:
      return "sends";
    default:
      return std::string(to_string(op)) + "s";
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
  Reporter(const Cluster& c, const Router& r, const Job& job, const ScoreState& state, const ScoreOptions& opt,
           const std::vector<double>* best_item_us)
      : c_(c),
        r_(r),
        job_(job),
        state_(state),
        opt_(opt),
        scratch_(r, *opt.calibration, &state.share()),
        best_item_us_(best_item_us) {}

  Result<JobScore> run();

 private:
  // An item's time per call once a finding's cause is gone: `time_us`, or with `best` its best
  // case (lower_bound's item_us).
  struct Fix {
    size_t item = 0;
    double time_us = 0;
    bool best = false;
  };
  Result<ItemScore> score_item(size_t index);
  void find(size_t index, const ItemScore& s);
  // A finding about one group of an item, with its list index, ranks and hosts.
  Finding about(const char* severity, size_t item, size_t group) const;
  void add(Finding f, std::vector<Fix> fixes);
  void tp_span(size_t index, const std::vector<size_t>& spanning);
  std::string order_fix(const std::string& token) const;
  std::string tier_fix(size_t index, size_t group, EdgeId hot);
  // Per group list, the hosts of each group (a pipeline's stage pairs make up its groups): found
  // once, for every tier fix in a plan.
  struct Span {
    std::map<int, std::vector<int>> hosts;  // list index -> hosts, sorted
  };
  struct Spans {
    std::map<std::string, Span> of;  // by token
  };
  const Spans& group_spans();
  // How many hosts the token's groups at this list index span.
  int list_hosts(const std::string& token, int list) const;
  const std::vector<int>& allocation_hosts();  // sorted
  Result<void> cost_findings(JobScore& out);
  void memory_find(const MemoryEstimate& memory);

  const Cluster& c_;
  const Router& r_;
  const Job& job_;
  const ScoreState& state_;
  const ScoreOptions& opt_;
  LinkLoad scratch_;
  std::optional<Spans> spans_;
  std::optional<std::vector<int>> hosts_;
  const std::vector<double>* best_item_us_;
  std::vector<Finding> findings_;
  std::vector<std::vector<Fix>> fixes_;  // parallel to findings_: what fixing each cause changes
  std::set<std::string> span_reported_;  // group tokens
  struct Dci {
    int groups = 0, of = 0;
    double per_call_us = 0, per_step_us = 0;
    std::string sites;
    EdgeId link = 0;
    std::vector<int> indices;  // the crossing groups' list indices, of the first item found
    std::vector<Fix> fixes;    // each crossing item without its propagation
  };
  std::array<Dci, kTrafficKinds> dci_{};
};

Finding Reporter::about(const char* severity, size_t item, size_t group) const {
  const TrafficItem& it = state_.traffic().items[item];
  Finding f;
  f.severity = severity;
  f.kind = std::string(to_string(it.kind));
  f.group = it.group;
  f.index = state_.list_index(item, group);
  f.groups = {f.index};
  f.ranks = state_.group_ranks(item, group);
  f.hosts = c_.hosts_of(state_.item_groups(item)[group]);
  return f;
}

// An order string with `token`'s axis innermost, when the job's puts another axis first and the
// layout fills hosts in rank order: each group then lands on consecutive ranks of one host.
std::string Reporter::order_fix(const std::string& token) const {
  if (!state_.layout().line_of_rank.empty()) return "";
  Result<std::vector<Axis>> axes = order_parse(job_.parallel.order);
  if (!axes || axes->empty() || token.find('.') != std::string::npos || axis_name(axes->front()) == token) return "";
  std::string order = token;
  for (Axis a : *axes)
    if (axis_name(a) != token) order += "-" + std::string(axis_name(a));
  if (!RankGroups::make(job_parallel_sizes(job_), order)) return "";
  return "order " + order + " keeps each " + token + " group on consecutive ranks";
}

// Over the GPU's memory the job cannot start; within a tenth of it, the CUDA context, NCCL's
// buffers and the allocator's fragmentation (none of which the estimate counts) may not fit.
void Reporter::memory_find(const MemoryEstimate& m) {
  const GpuCompute& gpu = state_.traffic().compute.gpu;
  Finding f;
  f.kind = "memory";
  if (!m.fits()) {
    f.severity = "critical";
    f.message = memory_over_text(job_, gpu, m);
  } else if (m.peak().total_bytes() > 0.9 * m.capacity_bytes) {
    f.severity = "warning";
    f.message = "GPU memory nearly full: " + memory_text(m, gpu.model) +
                "; the CUDA context, NCCL's buffers and the allocator's fragmentation need some of the rest";
  } else {
    return;
  }
  add(std::move(f), {});
}

void Reporter::add(Finding f, std::vector<Fix> fixes) {
  findings_.push_back(std::move(f));
  fixes_.push_back(std::move(fixes));
}

// TP belongs inside one NVLink domain: one finding for every group of the kind that leaves it,
// naming the hop where the first group's ring leaves it.
void Reporter::tp_span(size_t index, const std::vector<size_t>& spanning) {
  const TrafficItem& item = state_.traffic().items[index];
  const size_t i = spanning.front();
  const std::vector<VertexId>& g = state_.item_groups(index)[i];
  Finding f = about("critical", index, i);
  f.groups.clear();
  for (size_t k : spanning) f.groups.push_back(state_.list_index(index, k));
  const size_t of = state_.item_groups(index).size();
  const std::string selector = std::string(group_kind(item.group)) + ":" + std::to_string(f.index);
  const int domain = domain_gpus(c_, g.front());
  const std::string axis = item.group == "tp" ? "TP" : "expert TP";
  const std::string first = axis + " group " + std::to_string(f.index) + " (ranks " + format_index_list(f.ranks) +
                            ") spans " + hosts_text(c_, f.hosts);
  f.message = spanning.size() == 1 ? first + ": its " + plural_op(item.op) + " cross "
                                   : std::to_string(spanning.size()) + " of the " + std::to_string(of) + " " + axis +
                                         " groups span NVLink domains (groups " + format_index_list(f.groups) + "); " +
                                         first + ": its " + plural_op(item.op) + " cross ";
  for (size_t k = 0; k < g.size(); ++k) {
    const VertexId a = g[k], b = g[(k + 1) % g.size()];
    if (same_domain(c_, a, b)) continue;
    Result<Route> route = r_.route(a, b, {NicPolicy::rail_aligned, false});
    if (!route) break;
    f.has_link = true;
    f.link = route->bottleneck;
    f.message += std::string(to_string(route->path_class)) + ", slowest at " + c_.edge_name(f.link) + " (" +
                 format_number(c_.link(f.link).bw_GBps, 1) + " GB/s), instead of " + inside_text(c_, a);
    break;
  }
  if (static_cast<int>(g.size()) > domain) {
    f.message += "; " + axis + " " + std::to_string(g.size()) + " does not fit in one NVLink domain of " +
                 std::to_string(domain) + " GPUs";
    f.fix = "use " + std::string(item.group == "tp" ? "tp" : "expert_tp") + " <= " + std::to_string(domain) +
            ", or hosts with larger NVLink domains";
  } else {
    const std::string order = order_fix(item.group);
    const std::string put = spanning.size() == 1 ? "put ranks " + format_index_list(f.ranks) + " on one host"
                                                 : "put each " + axis + " group on one host";
    f.fix = (order.empty() ? put : order) + "; topoplan explain --group " + selector + " shows the moves";
  }
  // Fixed, every collective of the kind runs at its best case.
  std::vector<Fix> fixes;
  for (size_t k = 0; k < state_.item_count(); ++k)
    if (state_.traffic().items[k].group == item.group && !state_.item_groups(k).empty()) fixes.push_back({k, 0, true});
  add(std::move(f), std::move(fixes));
}

Result<ItemScore> Reporter::score_item(size_t index) {
  const TrafficItem& item = state_.traffic().items[index];
  const ItemTime& t = state_.item_time(index);
  const size_t g = static_cast<size_t>(t.slowest_group);
  const CollectivePrediction& p = state_.item_alone(index, g);
  ItemScore s;
  s.item = item;
  s.groups = static_cast<int>(state_.item_groups(index).size());
  s.groups_running = static_cast<int>(state_.groups_running(index));
  s.slowest_group = t.slowest_group;
  s.algorithm = p.algorithm;
  s.proto = p.proto;
  s.dci_us = p.dci_us;
  s.contended_us = t.contended_us;
  // Its own time alone: NCCL's time for its shape, on the links this group really crosses.
  RETURN_IF_ERROR(state_.group_load(index, g, scratch_));
  s.alone_us = contended_us(p, state_.item_alone_peak(index, g), scratch_.busiest().busy_us, item.bytes);
  s.has_hot_edge = t.has_hot_edge;
  s.hot_edge = t.hot_edge;
  if (s.has_hot_edge) {
    s.hot_edge_bytes = state_.item_load(index).bytes(s.hot_edge) * item.bytes;
    s.hot_edge_groups = state_.contending_on(index, s.hot_edge);
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
  if ((item.group == "tp" || item.group == "expert.tp") && span_reported_.insert(item.group).second) {
    std::vector<size_t> spanning;
    for (size_t i = 0; i < gpus.size(); ++i)
      if (!one_domain(c_, gpus[i])) spanning.push_back(i);
    if (!spanning.empty()) tp_span(index, spanning);
  }

  // Where the slowest group's traffic waits.
  if (s.has_hot_edge) {
    const size_t slowest = static_cast<size_t>(s.slowest_group);
    const std::vector<VertexId>& g = gpus[slowest];
    const double slowdown = s.alone_us > 0 ? s.contended_us / s.alone_us : 1;
    // All-to-all incast: the busiest link into a NIC, when it is (one of) the group's bottleneck.
    EdgeId into_nic = 0;
    double into_busy = 0;
    if (item.op == CollectiveOp::alltoall)
      for_each_edge(r_, state_.item_touched(index, slowest), [&](EdgeId e) {
        if (c_.device(c_.target(e)).kind == DeviceKind::nic && total.busy_us(e) > into_busy) {
          into_busy = total.busy_us(e);
          into_nic = e;
        }
      });
    const int host = into_busy > 0 ? c_.device(c_.target(into_nic)).host : -1;
    int senders = 0;
    for (VertexId v : g) senders += host >= 0 && c_.device(v).host != host;
    if (senders > 1 && into_busy >= 0.99 * total.busy_us(s.hot_edge)) {
      Finding f = about("warning", index, slowest);
      f.has_link = true;
      f.link = into_nic;
      f.message = "EP all-to-all: " + std::to_string(senders) + " senders target " +
                  c_.hosts()[static_cast<size_t>(host)].name + "'s NIC (" + c_.edge_name(into_nic) + "): each " +
                  item.what + " call takes " + format_duration(s.contended_us * 1e-6) +
                  (slowdown > 1.05 ? " (" + fmt("%.1f", slowdown) + "x its time alone)" : "");
      const int domain = domain_gpus(c_, g.front());
      f.fix = static_cast<int>(g.size()) <= domain
                  ? "keep each " + item.group + " group of " + std::to_string(g.size()) +
                        " inside one NVLink domain, where the all-to-all stays off the NICs"
                  : "a group of " + std::to_string(g.size()) + " spans NVLink domains of " + std::to_string(domain) +
                        " GPUs in any layout: ep <= " + std::to_string(domain) + " keeps the all-to-all on NVLink";
      add(std::move(f), {{index, 0, true}});
    } else if (slowdown >= 1.25) {
      Finding f = about("warning", index, slowest);
      f.has_link = true;
      f.link = s.hot_edge;
      // What the contention adds to the step: only the share of the item's time that is exposed
      // (a gradient reduction hidden under the backward, or a stage class that finishes early,
      // costs the step nothing however slow the link makes it).
      const double exposed_share = s.time_us > 0 ? std::min(1.0, s.exposed_us / s.time_us) : 0;
      f.message = kind + " " + what + ": " + c_.edge_name(s.hot_edge) + " carries " +
                  std::to_string(s.hot_edge_groups) + (item.stage_pairs ? " stage pairs" : " groups") +
                  " at once; a call takes " + format_duration(s.contended_us * 1e-6) + " instead of " +
                  format_duration(s.alone_us * 1e-6) + " alone (" + fmt("%.1f", slowdown) + "x)" +
                  (exposed_share == 0 ? ", which the step does not wait for" : "");
      const VertexId nic =
          c_.device(c_.source(s.hot_edge)).kind == DeviceKind::nic ? c_.source(s.hot_edge) : c_.target(s.hot_edge);
      if (c_.device(nic).kind != DeviceKind::nic) {
        f.fix = tier_fix(index, slowest, s.hot_edge);
      } else {
        // Several GPUs behind one NIC can be kept apart; one GPU's own groups (a pipeline stage
        // sending to both neighbours) cannot.
        const std::vector<VertexId>& host_gpus = c_.hosts()[static_cast<size_t>(c_.device(nic).host)].gpus;
        const auto behind =
            std::count_if(host_gpus.begin(), host_gpus.end(), [&](VertexId v) { return r_.nic_for(v) == nic; });
        if (behind > 1)
          f.fix = std::to_string(behind) + " GPUs share " + c_.device(nic).name +
                  ": keep these groups inside hosts, or use hosts with a NIC per GPU";
      }
      add(std::move(f), {{index, s.alone_us, false}});
    }
  }

  // Cross-site traffic other than data parallelism's.
  if (item.kind != TrafficKind::dp) {
    Dci& d = dci_[static_cast<size_t>(item.kind)];
    int crossing = 0;
    double per_call = 0;
    std::vector<int> indices;
    for (size_t i = 0; i < gpus.size(); ++i) {
      const Touched& own = state_.item_touched(index, i);
      bool crosses =
          std::any_of(own.edges.begin(), own.edges.end(), [&](EdgeId e) { return c_.link(e).kind == LinkKind::DCI; }) ||
          std::any_of(own.segments.begin(), own.segments.end(),
                      [&](uint32_t id) { return r_.segment(id).crosses_dci; });
      if (!crosses) continue;
      if (d.sites.empty())
        for_each_edge(r_, own, [&](EdgeId e) {
          if (c_.link(e).kind == LinkKind::DCI && d.sites.empty()) {
            d.sites = c_.sites()[static_cast<size_t>(c_.device(c_.source(e)).site)] + " and " +
                      c_.sites()[static_cast<size_t>(c_.device(c_.target(e)).site)];
            d.link = e;
          }
        });
      ++crossing;
      indices.push_back(state_.list_index(index, i));
      per_call = std::max(per_call, state_.item_alone(index, i).dci_us);
    }
    if (crossing) {
      if (d.indices.empty()) d.indices = std::move(indices);
      d.fixes.push_back({index, std::max(0.0, state_.item_time(index).contended_us - per_call), false});
      d.groups = std::max(d.groups, crossing);
      d.of = std::max(d.of, static_cast<int>(gpus.size()));
      d.per_call_us = std::max(d.per_call_us, per_call);
      d.per_step_us += per_call * item.calls;
    }
  }
}

// What fixing each finding's cause would save: the exposure with the items it names at their
// time without it, every other item as it stands. The lower bound gives the best cases, and the
// floor the summary line measures the layout against.
Result<void> Reporter::cost_findings(JobScore& out) {
  if (std::all_of(findings_.begin(), findings_.end(), [](const Finding& f) { return f.severity == "info"; })) return {};
  std::optional<LowerBound> computed;
  if (!best_item_us_) {
    Result<LowerBound> bound = lower_bound(c_, r_, job_, state_.layout(), opt_, state_.nodes());
    RETURN_IF_ERROR(bound);
    computed = std::move(*bound);
  }
  const std::vector<double>& best = best_item_us_ ? *best_item_us_ : computed->item_us;
  if (best.size() != state_.item_count()) return Error{"the lower bound's collectives are not the score's"};
  out.lower_bound_s = exposure_us(state_.traffic(), best) / 1e6;
  std::vector<double> now(state_.item_count(), 0);
  for (size_t i = 0; i < now.size(); ++i)
    if (!state_.item_groups(i).empty()) now[i] = state_.item_time(i).contended_us;
  const double exposed = exposure_us(state_.traffic(), now);
  for (size_t k = 0; k < findings_.size(); ++k) {
    if (fixes_[k].empty()) continue;
    std::vector<double> fixed = now;
    for (const Fix& x : fixes_[k]) fixed[x.item] = std::min(fixed[x.item], x.best ? best[x.item] : x.time_us);
    findings_[k].cost_per_step_s = std::max(0.0, exposed - exposure_us(state_.traffic(), fixed)) / 1e6;
  }
  return {};
}

const std::vector<int>& Reporter::allocation_hosts() {
  if (hosts_) return *hosts_;
  std::vector<int>& out = hosts_.emplace();
  for (VertexId v : state_.layout().gpu_of_rank) out.push_back(c_.device(v).host);
  sort_unique(out);
  return out;
}

int Reporter::list_hosts(const std::string& token, int list) const {
  std::vector<int> hosts;
  for (size_t i = 0; i < state_.item_count(); ++i)
    if (state_.traffic().items[i].group == token)
      for (size_t g : state_.groups_of(i, list))
        for (VertexId v : state_.item_groups(i)[g]) hosts.push_back(c_.device(v).host);
  sort_unique(hosts);
  return static_cast<int>(hosts.size());
}

const Reporter::Spans& Reporter::group_spans() {
  if (spans_) return *spans_;
  Spans& out = spans_.emplace();
  for (size_t i = 0; i < state_.item_count(); ++i) {
    Span& sp = out.of[state_.traffic().items[i].group];
    for (size_t k = 0; k < state_.item_groups(i).size(); ++k) {
      std::vector<int>& hosts = sp.hosts[state_.list_index(i, k)];
      for (VertexId v : state_.item_groups(i)[k]) hosts.push_back(c_.device(v).host);
    }
  }
  for (auto& [token, sp] : out.of)
    for (auto& [list, hosts] : sp.hosts) sort_unique(hosts);
  return out;
}

// How to keep an item's groups below the tier its busiest link climbs to, on these hosts: a group
// that needs more hosts than any unit under that tier holds of the allocation cannot be; in a plan,
// the units hold other groups instead, and hosts enough for both would be needed.
std::string Reporter::tier_fix(size_t index, size_t group, EdgeId hot) {
  const TrafficItem& item = state_.traffic().items[index];
  const std::string tier = link_tier(c_, hot);
  const int climbs = link_level(c_, hot);
  const Level level = climbs >= kDciLevel || tier == "site" ? Level::site
                      : climbs <= 2                         ? Level::leaf_group
                                                            : Level::pod;
  const std::string unit(to_string(level));
  const Locality& loc = locality_of(c_);
  // Hosts per unit, of the allocation and of the whole cluster.
  std::map<int, int> mine, all;
  for (int h : allocation_hosts()) ++mine[loc.unit(h, level)];
  for (int h = 0; h < static_cast<int>(c_.hosts().size()); ++h) ++all[loc.unit(h, level)];
  int most = 0, largest = 0;
  for (const auto& [u, n] : mine) most = std::max(most, n);
  for (const auto& [u, n] : all) largest = std::max(largest, n);
  auto widest = [&](const Span& sp, bool* inside) {
    size_t n = 0;
    for (const auto& [idx, hs] : sp.hosts) {
      n = std::max(n, hs.size());
      for (int h : hs) *inside = *inside && loc.unit(h, level) == loc.unit(*hs.begin(), level);
    }
    return static_cast<int>(n);
  };
  const int need = list_hosts(item.group, state_.list_index(index, group));
  auto count = [](int n) { return std::to_string(n) + (n == 1 ? " host" : " hosts"); };
  auto elsewhere = [&](int n, const std::string& what) {
    return largest >= n ? count(n) + " in one " + unit + " would " + what + " (this cluster's " + unit +
                              "s have up to " + std::to_string(largest) + ")"
                        : "no " + unit + " of this cluster has the " + count(n) + " to " + what + " (the largest has " +
                              std::to_string(largest) + ")";
  };
  if (most < need)
    return "unavoidable on these hosts: a " + item.group + " group spans " + count(need) + " and no " + unit +
           " holds more than " + std::to_string(most) + " of the allocation; " + elsewhere(need, "keep it there");
  if (!opt_.planned)
    return "keep each " + item.group + " group " +
           (level == Level::site ? "inside one site" : "below the " + tier + " tier") +
           "; topoplan plan on the same hosts weighs it against the other groups";
  // The plan's choice: which groups it kept inside the units instead.
  std::string kept;
  int other = 1;
  for (const auto& [token, sp] : group_spans().of) {
    bool inside = true;
    const int n = widest(sp, &inside);
    if (token == item.group || !inside || n < 2) continue;
    kept += (kept.empty() ? "" : ", ") + token + " groups (" + count(n) + " each)";
    other = std::max(other, n);
  }
  if (kept.empty())
    return "the plan found no layout of these hosts that keeps each " + item.group + " group inside one " + unit +
           " and exposes less";
  return "the plan keeps " + kept + " inside each " + unit + " instead, and the fullest " + unit +
         " of the allocation has " + count(most) + ": room for one " + item.group + " group of " +
         std::to_string(need) + " or the other, not both; " + elsewhere(need * other, "hold both");
}

Result<JobScore> Reporter::run() {
  JobScore out;
  out.job = job_.name;
  out.layout = state_.layout().source;
  out.fabric = opt_.fabric;
  out.background = opt_.background ? opt_.background->source : "";
  out.ranks = state_.layout().world_size();
  out.gpu_of_rank = state_.layout().gpu_of_rank;
  out.traffic = state_.traffic();
  for (size_t i = 0; i < state_.item_count(); ++i) {
    if (state_.item_groups(i).empty()) continue;
    const TrafficItem& item = out.traffic.items[i];
    Result<ItemScore> s = score_item(i);
    if (!s) return Error{std::string(to_string(item.kind)) + " " + std::string(to_string(item.op)) + ": " + s.error()};
    find(i, *s);
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
  if (out.step_s > 0 && out.ranks > 0) {
    out.model_tflops_per_gpu = out.traffic.compute.model_flops / out.step_s / out.ranks / 1e12;
    out.mfu = out.model_tflops_per_gpu / out.traffic.compute.gpu.peak_tflops;
    out.hardware_tflops_per_gpu = out.traffic.compute.hardware_flops / out.step_s / out.ranks / 1e12;
    out.hfu = out.hardware_tflops_per_gpu / out.traffic.compute.gpu.peak_tflops;
  }
  out.level_bytes = state_.level_bytes();
  out.memory = memory_estimate(job_, out.traffic.compute.gpu);
  memory_find(out.memory);
  out.links = link_uses(state_);
  for (size_t k = 0; k < kTrafficKinds; ++k) {
    const Dci& d = dci_[k];
    if (d.groups == 0) continue;
    const std::string kind(to_string(static_cast<TrafficKind>(k)));
    Finding f;
    f.severity = k == static_cast<size_t>(TrafficKind::pp) ? "warning" : "critical";
    f.kind = kind;
    f.has_link = true;
    f.link = d.link;
    f.groups = d.indices;
    f.message = kind + " traffic of " + std::to_string(d.groups) + " of " + std::to_string(d.of) +
                " groups crosses the DCI between " + d.sites + ": +" + format_duration(d.per_call_us * 1e-6) +
                " propagation per call, +" + format_duration(d.per_step_us * 1e-6) + " per step";
    f.fix = "topoplan plan --keep " + std::string(kKeepDpOnlyAcrossSites) + " keeps every " + kind +
            " group inside one site";
    add(std::move(f), d.fixes);
  }
  for (size_t k = 0; k < kTrafficKinds; ++k) {
    const double exposed = out.by_kind[k].exposed_s;
    if (out.step_s <= 0 || exposed / out.step_s < 0.05) continue;
    Finding f;
    f.severity = "info";
    f.kind = std::string(to_string(static_cast<TrafficKind>(k)));
    f.cost_per_step_s = exposed;
    f.message = format_duration(exposed) + " of " + f.kind + " communication per step is exposed (" +
                fmt("%.0f", 100 * exposed / out.step_s) + "% of the step)";
    add(std::move(f), {});
  }
  RETURN_IF_ERROR(cost_findings(out));
  std::stable_sort(findings_.begin(), findings_.end(), [](const Finding& a, const Finding& b) {
    return severity_rank(a.severity) < severity_rank(b.severity);
  });
  out.findings = std::move(findings_);
  return out;
}

}  // namespace

std::string findings_text(const std::vector<Finding>& findings, const JobScore& score) {
  if (findings.empty()) return "  none\n";
  std::string out;
  for (const Finding& f : findings) {
    const std::string cost = finding_cost_text(f);
    out += "  [" + f.severity + "] " + f.message + (cost.empty() ? "" : " (" + cost + ")") +
           (f.fix.empty() ? "" : "; fix: " + f.fix) + "\n";
  }
  if (score.lower_bound_s) {
    const std::string critical = critical_groups_text(findings);
    out += "  in all: " + format_duration(score.exposed_comm_s) + " exposed per step, " +
           format_duration(std::max(0.0, score.exposed_comm_s - *score.lower_bound_s)) + " over the lower bound (" +
           format_duration(*score.lower_bound_s) + ": every group alone at its best placement on these hosts)" +
           (critical.empty() ? "" : "; " + critical) + "\n";
  }
  return out;
}

std::string critical_groups_text(const std::vector<Finding>& findings) {
  int groups = 0, critical = 0;
  for (const Finding& f : findings)
    if (f.severity == "critical" && f.kind != "memory") {
      ++critical;
      groups += std::max<int>(1, static_cast<int>(f.groups.size()));
    }
  if (!critical) return "";
  return std::to_string(groups) + (groups == 1 ? " group" : " groups") + " in " + std::to_string(critical) +
         (critical == 1 ? " critical finding" : " critical findings");
}

std::string finding_cost_text(const Finding& f) {
  return f.severity != "info" && f.cost_per_step_s > 0 ? "-" + format_duration(f.cost_per_step_s) + " per step if fixed"
                                                       : "";
}

GroupCost group_cost(const ScoreState& state, const std::vector<double>& best_item_us, const std::string& token,
                     int index) {
  GroupCost out;
  double heaviest_s = -1;
  for (size_t i = 0; i < state.item_count(); ++i) {
    const TrafficItem& it = state.traffic().items[i];
    if (it.group != token || state.item_groups(i).empty()) continue;
    const std::vector<size_t> groups = state.groups_of(i, index);
    if (groups.empty()) continue;  // another stage class's item
    double contended = 0;
    for (size_t k : groups) contended = std::max(contended, state.group_time(i, k).contended_us);
    const double per_step = it.calls * contended / 1e6;
    out.per_step_s += per_step;
    out.excess_s += std::max(0.0, it.calls * (contended - best_item_us[i]) / 1e6);
    if (per_step > heaviest_s) {
      heaviest_s = per_step;
      out.heaviest = i;
    }
  }
  return out;
}

std::array<double, kPhases> phase_durations_us(const ScoreState& state) {
  const StepTraffic& t = state.traffic();
  const StageCompute& sc = t.compute.slowest();
  std::array<double, kPhases> out{};
  out[static_cast<size_t>(Phase::forward)] = t.compute.micro_batches * sc.forward_us;
  out[static_cast<size_t>(Phase::backward)] = t.compute.micro_batches * sc.backward_us;
  // Stage classes' transfers outside compute run at once: the longest class counts.
  std::vector<std::array<double, kPhases>> per_class(t.stage_classes.size(), std::array<double, kPhases>{});
  for (size_t i = 0; i < state.item_count(); ++i) {
    if (state.item_groups(i).empty()) continue;
    const TrafficItem& it = t.items[i];
    const ItemTime& time = state.item_time(i);
    // Compute phases last as long as their compute plus what their communication leaves exposed;
    // the PP slots and the optimizer as long as their own transfers.
    const bool compute_phase = it.phase == Phase::forward || it.phase == Phase::backward;
    const double us = compute_phase ? time.exposed_us : it.calls * time.contended_us;
    if (it.stage_class >= 0 && !compute_phase)
      per_class[static_cast<size_t>(it.stage_class)][static_cast<size_t>(it.phase)] += us;
    else
      out[static_cast<size_t>(it.phase)] += us;
  }
  for (size_t p = 0; p < kPhases; ++p) {
    double longest = 0;
    for (const auto& c : per_class) longest = std::max(longest, c[p]);
    out[p] += longest;
  }
  return out;
}

double state_step_s(const ScoreState& state) {
  return state.traffic().compute.step_us / 1e6 + state.exposed_us() / 1e6;  // as JobScore::step_s
}

std::vector<LinkUse> link_uses(const ScoreState& state) {
  const StepTraffic& traffic = state.traffic();
  // Every loaded edge gets a slot, in the order the items load them, and its sums there: bytes,
  // and busy time per phase until the phases' durations are known.
  struct Sums {
    double bytes = 0;
    std::array<double, kPhases> busy_us{};
  };
  std::vector<uint32_t> slot;
  std::vector<EdgeId> edge_of;
  for (size_t i = 0; i < state.item_count(); ++i)
    if (!state.item_groups(i).empty())
      for (EdgeId e : state.item_load(i).loaded()) {
        if (e >= slot.size()) slot.resize(e + 1, UINT32_MAX);
        if (slot[e] == UINT32_MAX) {
          slot[e] = static_cast<uint32_t>(edge_of.size());
          edge_of.push_back(e);
        }
      }
  std::vector<Sums> sums(edge_of.size());
  for (size_t i = 0; i < state.item_count(); ++i) {
    if (state.item_groups(i).empty()) continue;
    const TrafficItem& item = traffic.items[i];
    const LinkLoad& load = state.item_load(i);
    for (EdgeId e : load.loaded()) {
      Sums& u = sums[slot[e]];
      u.bytes += load.bytes(e) * item.bytes * item.calls;
      u.busy_us[static_cast<size_t>(item.phase)] += load.busy_us(e) * item.bytes * item.calls;
    }
  }
  const double step_s = state_step_s(state);
  const std::array<double, kPhases> phase_us = phase_durations_us(state);
  auto use = [&](uint32_t s) {
    LinkUse l;
    l.edge = edge_of[s];
    l.bytes = sums[s].bytes;
    for (size_t p = 0; p < kPhases; ++p) {
      l.busy_us += sums[s].busy_us[p];
      l.phase_utilization[p] = phase_us[p] > 0 ? sums[s].busy_us[p] / phase_us[p] : 0;
      if (l.phase_utilization[p] > l.peak) {
        l.peak = l.phase_utilization[p];
        l.peak_phase = static_cast<Phase>(p);
      }
    }
    l.utilization = step_s > 0 ? l.busy_us / (step_s * 1e6) : 0;
    return l;
  };
  // A total order: peak, then utilization, highest first, then the edge. Links with equal
  // figures are most of them (every ring's hops alike), so the distinct figures are sorted and
  // each link's place is its figures' first free place, links taken in edge order; the records
  // are then made in place order, each written once (made in slot order and moved along the
  // permutation's cycles, the 80-byte records were each moved twice at random).
  struct Figures {
    double peak, utilization;
    bool operator==(const Figures&) const = default;
  };
  struct FiguresHash {
    size_t operator()(const Figures& f) const {
      return std::hash<double>()(f.peak) * 0x9e3779b97f4a7c15ull ^ std::hash<double>()(f.utilization);
    }
  };
  std::unordered_map<Figures, uint32_t, FiguresHash> group_at;
  std::vector<uint32_t> group(edge_of.size()), at(edge_of.size());
  std::vector<Figures> figures;
  std::vector<uint32_t> size;
  uint32_t last = UINT32_MAX;  // the link before's: a ring's hops are loaded one after another, alike
  for (uint32_t s = 0; s < edge_of.size(); ++s) {
    const LinkUse l = use(s);
    const Figures f{l.peak, l.utilization};
    if (last == UINT32_MAX || figures[last] != f) {
      auto [it, fresh] = group_at.try_emplace(f, static_cast<uint32_t>(figures.size()));
      if (fresh) {
        figures.push_back(f);
        size.push_back(0);
      }
      last = it->second;
    }
    group[s] = last;
    ++size[last];
  }
  std::vector<uint32_t> rank(figures.size());
  for (uint32_t g = 0; g < rank.size(); ++g) rank[g] = g;
  std::sort(rank.begin(), rank.end(), [&](uint32_t x, uint32_t y) {
    const Figures &a = figures[x], &b = figures[y];
    return a.peak != b.peak ? a.peak > b.peak : a.utilization > b.utilization;
  });
  std::vector<uint32_t> next(figures.size());
  for (uint32_t r = 0, first = 0; r < rank.size(); ++r) {
    next[rank[r]] = first;
    first += size[rank[r]];
  }
  for (uint32_t e = 0; e < slot.size(); ++e)
    if (slot[e] != UINT32_MAX) at[next[group[slot[e]]]++] = slot[e];
  std::vector<LinkUse> out;
  out.reserve(edge_of.size());
  for (uint32_t s : at) out.push_back(use(s));
  return out;
}

std::string_view phase_window_name(Phase p) {
  switch (p) {
    case Phase::forward:
      return "forward";
    case Phase::backward:
      return "backward";
    case Phase::pipeline:
      return "pp_slots";
    case Phase::optimizer:
      return "optimizer";
  }
  return "?";
}

Result<JobScore> score_report(const Cluster& cluster, const Router& router, const Job& job, const ScoreState& state,
                              const ScoreOptions& options, const std::vector<double>* best_item_us) {
  return Reporter(cluster, router, job, state, options, best_item_us).run();
}

Result<JobScore> score_job(const Cluster& cluster, const Router& router, const Job& job, const Layout& layout,
                           const ScoreOptions& options) {
  Result<std::unique_ptr<ScoreState>> state = ScoreState::make(cluster, router, job, layout, options);
  RETURN_IF_ERROR(state);
  return score_report(cluster, router, job, **state, options);
}

}  // namespace topoplan

#include "cost/link_load.h"

#include <algorithm>
#include <stdexcept>

namespace topoplan {

LinkLoad::LinkLoad(const Router& router, const Calibration& calibration, const LinkShare* share, Spread spread)
    : router_(router),
      cal_(calibration),
      share_(share),
      per_connection_(spread == Spread::routed && router.cluster().routing.mode != Routing::adaptive),
      bytes_(router.cluster().num_edges()),
      busy_us_(router.cluster().num_edges()),
      is_loaded_(router.cluster().num_edges(), false),
      rates_(std::make_shared<Rates>()) {}

void LinkLoad::rates_from(const LinkLoad& other) {
  if (&other.router_ != &router_ || &other.cal_ != &cal_ || other.share_ != share_)
    throw std::logic_error("LinkLoad::rates_from: another router, calibration or share");
  rates_ = other.rates_;
}

void LinkLoad::clear() {
  pending_.clear();
  for (EdgeId e : loaded_) {
    bytes_[e] = busy_us_[e] = 0;
    is_loaded_[e] = false;
  }
  loaded_.clear();
  level_bytes_.fill(0);
  dci_latency_us_ = 0;
  worst_class_ = PathClass::LOC;
}

void LinkLoad::reshare(const LinkShare* old, const LinkShare* share) {
  flush();
  for (EdgeId e : loaded_) {
    const double was = old ? old->at(e) : 1, now = share ? share->at(e) : 1;
    if (was != now) busy_us_[e] *= was / now;
  }
  share_ = share;
  rates_ = std::make_shared<Rates>();  // its own until joined again
}

double LinkLoad::rate_first(EdgeId e, FlowMode mode) const {
  ZeroedArray<double>& cache = rates_->by_mode[static_cast<size_t>(mode)];
  if (cache.size() == 0) cache = ZeroedArray<double>(router_.cluster().num_edges());
  double& rate = cache[e];
  if (rate == 0) {
    const Cluster& c = router_.cluster();
    const Link& l = c.link(e);
    double efficiency = cal_.efficiency[static_cast<size_t>(l.kind)];
    if (mode == FlowMode::multimem)
      efficiency = cal_.multimem_efficiency(c, e);
    else if (l.kind == LinkKind::NVL)
      efficiency = cal_.copy_efficiency(c, e);
    rate = l.bw_GBps * efficiency;
    if (share_) rate *= share_->at(e);
  }
  return rate;
}

const Route* LinkLoad::route(VertexId a, VertexId b, bool pxn, std::optional<uint32_t> flow, std::string* error) {
  const RouteKey key{a, b, flow.value_or(UINT32_MAX), pxn};
  auto it = routes_.find(key);
  if (it != routes_.end()) return &it->second;
  Result<Route> r = router_.route(a, b, {pxn ? NicPolicy::pxn : NicPolicy::rail_aligned, true, flow});
  if (!r) {
    *error = r.error();
    return nullptr;
  }
  if (cached_hops_ + r->hops.size() > kMaxCachedHops) {
    routes_.clear();
    cached_hops_ = 0;
  }
  cached_hops_ += r->hops.size();
  return &routes_.emplace(key, std::move(*r)).first->second;
}

Result<void> LinkLoad::add(const Transfer& t, Touched* touched) { return add_scaled(t, 1, touched); }

Result<void> LinkLoad::remove(const std::vector<Transfer>& transfers, Touched* touched) {
  for (const Transfer& t : transfers)
    if (Result<void> ok = add_scaled(t, -1, touched); !ok) return ok;
  return {};
}

Result<void> LinkLoad::add_scaled(const Transfer& t, double sign, Touched* touched) {
  if (t.bytes <= 0 || t.src == t.dst) return {};
  const double bytes = sign * t.bytes;
  const Cluster& c = router_.cluster();
  if (t.mode == FlowMode::multimem) {
    for (EdgeId e : c.out_edges(t.src))
      if (c.target(e) == t.dst) {
        add_edge(e, bytes, t.mode);
        if (touched) touched->edges.push_back(e);
        worst_class_ = std::max(worst_class_, PathClass::NVL);
        return {};
      }
    return Error{"no link from '" + c.device(t.src).name + "' to '" + c.device(t.dst).name + "' for NVLS"};
  }
  if (!per_connection_) {
    // The equal-cost set between hosts: added from the router's parts, so a job's million GPU
    // pairs cost no Route each, and no cache.
    Result<std::optional<FabricParts>> parts =
        router_.fabric_parts(t.src, t.dst, t.pxn ? NicPolicy::pxn : NicPolicy::rail_aligned);
    if (!parts) return Error{parts.error()};
    if (*parts) {
      add_parts(**parts, bytes, t.mode, touched);
      return {};
    }
  }
  // Under hash routing every connection hashes onto a path of its own; under static routing they
  // all follow their destination's, so one route carries them all.
  const bool hash = per_connection_ && c.routing.mode == Routing::hash;
  const uint32_t connections = hash ? std::max<uint32_t>(t.connections, 1) : 1;
  for (uint32_t k = 0; k < connections; ++k) {
    std::string error;
    const Route* r = route(t.src, t.dst, t.pxn, per_connection_ ? std::optional(t.channel + k) : std::nullopt, &error);
    if (!r) return Error{error};
    // Inside a host or NVLink domain there is nothing to hash: the first route takes the bytes.
    const bool local = r->src_nic == kNoVertex;
    FabricParts whole;
    whole.fabric = r->hops;
    whole.segment = r->segment;
    whole.segment_share = r->segment_share;
    whole.path_class = r->path_class;
    add_parts(whole, local ? bytes : bytes / connections, t.mode, touched);
    if (local) break;
  }
  return {};
}

// A route's hops, whole or in the router's parts.
void LinkLoad::add_parts(const FabricParts& p, double bytes, FlowMode mode, Touched* touched) {
  const Cluster& c = router_.cluster();
  auto hop = [&](EdgeId e, double share) {
    add_edge(e, bytes * share, mode);
    if (touched) touched->edges.push_back(e);
  };
  double dci = 0;
  for (EdgeId e : p.src_local) hop(e, 1.0);
  for (const Hop& h : p.fabric) {
    hop(h.edge, h.share);
    if (c.link(h.edge).kind == LinkKind::DCI) dci += h.share * c.link(h.edge).latency_us;
  }
  for (size_t i = p.dst_local.size(); i-- > 0;) hop(Cluster::reverse(p.dst_local[i]), 1.0);
  if (p.segment != Route::kNoSegment) {
    pending_[p.segment] += bytes * p.segment_share;
    if (touched) touched->segments.push_back(p.segment);
    dci += p.segment_share * router_.segment(p.segment).dci_latency_us;
  }
  dci_latency_us_ = std::max(dci_latency_us_, dci);
  worst_class_ = std::max(worst_class_, p.path_class);
}

Result<void> LinkLoad::add(const std::vector<Transfer>& transfers, Touched* touched) {
  for (const Transfer& t : transfers)
    if (Result<void> ok = add(t, touched); !ok) return ok;
  return {};
}

const std::vector<LinkLoad::Pending>& LinkLoad::pending_in_order() const {
  std::vector<Pending>& out = pending_order_;
  out.clear();
  for (const auto& [id, b] : pending_) out.push_back({router_.segment(id).order, id, b});
  std::sort(out.begin(), out.end(), [](const Pending& x, const Pending& y) { return x.order < y.order; });
  pending_.clear();
  return out;
}

void LinkLoad::spread() const {
  for (const Pending& p : pending_in_order())
    for (const Hop& h : *router_.segment(p.id).hops) add_edge(h.edge, p.bytes * h.share, FlowMode::copy);
}

void LinkLoad::spread_by_part() const {
  // A link that only one part of the pending segments holds, and that nothing else loaded, sums
  // the same terms in the same order (pending segments in turn) as every link of that part with
  // its share and rate: one sum per such class gives them all, bit for bit as spread() would.
  PartScratch& x = parts_;
  const Cluster& c = router_.cluster();
  if (x.hops_on.size() == 0) x.hops_on = ZeroedArray<uint32_t>(c.num_edges());
  const std::vector<Pending>& pending = pending_in_order();
  for (const auto& [order, id, b] : pending)
    for (uint32_t part : router_.segment_parts(id)) {
      if (part >= x.bytes.size()) {
        x.bytes.resize(part + 1);
        x.mixed.resize(part + 1);
      }
      if (x.bytes[part].empty()) {
        x.pending.push_back(part);
        for (const Hop& h : router_.part(part)) ++x.hops_on[h.edge];
      }
      x.bytes[part].push_back(b);
    }
  struct Class {
    double share, rate, bytes = 0, busy_us = 0;
  };
  std::vector<Class> classes;
  for (uint32_t part : x.pending) {
    classes.clear();
    for (const Hop& h : router_.part(part)) {
      if (x.hops_on[h.edge] > 1 || is_loaded_[h.edge]) {
        x.mixed[part].push_back(h);
        continue;
      }
      const double rate = rate_GBps(h.edge, FlowMode::copy);
      auto it = std::find_if(classes.begin(), classes.end(),
                             [&](const Class& k) { return k.share == h.share && k.rate == rate; });
      if (it == classes.end()) {
        Class k{h.share, rate};
        for (double b : x.bytes[part]) {  // as add_edge adds, term by term
          const double bytes = b * h.share;
          k.bytes += bytes;
          k.busy_us += bytes / (1000.0 * rate);
        }
        classes.push_back(k);
        it = classes.end() - 1;
      }
      is_loaded_[h.edge] = true;
      loaded_.push_back(h.edge);
      bytes_[h.edge] = it->bytes;
      busy_us_[h.edge] = it->busy_us;
    }
  }
  // The rest term by term, in spread()'s order: pending segments in turn.
  for (const auto& [order, id, b] : pending)
    for (uint32_t part : router_.segment_parts(id))
      for (const Hop& h : x.mixed[part]) add_edge(h.edge, b * h.share, FlowMode::copy);
  for (uint32_t part : x.pending) {
    for (const Hop& h : router_.part(part)) x.hops_on[h.edge] = 0;
    x.bytes[part].clear();
    x.mixed[part].clear();
  }
  x.pending.clear();
}

void LinkLoad::add(const LinkLoad& other, double scale) {
  other.flush();
  flush();
  for (EdgeId e : other.loaded_) {
    if (!is_loaded_[e]) {
      is_loaded_[e] = true;
      loaded_.push_back(e);
    }
    bytes_[e] += other.bytes_[e] * scale;
    busy_us_[e] += other.busy_us_[e] * scale;
    if (levels_) level_bytes_[(*levels_)[e]] += other.bytes_[e] * scale;
  }
  dci_latency_us_ = std::max(dci_latency_us_, other.dci_latency_us_);
  worst_class_ = std::max(worst_class_, other.worst_class_);
}

LinkLoad::Peak LinkLoad::busiest() const {
  flush();
  Peak p;
  for (EdgeId e : loaded_)
    if (!p.any || busy_us_[e] > p.busy_us || (busy_us_[e] == p.busy_us && e < p.edge)) {
      p.any = true;
      p.edge = e;
      p.busy_us = busy_us_[e];
    }
  if (p.any) {
    p.bytes = bytes_[p.edge];
    p.effective_GBps = p.bytes / (1000.0 * p.busy_us);
  }
  return p;
}

}  // namespace topoplan

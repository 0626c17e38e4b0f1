#include "planner/pattern.h"

#include <algorithm>
#include <iterator>
#include <tuple>

namespace topoplan {
namespace {

template <typename T>
void sort_unique(std::vector<T>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

void sorted_insert(std::vector<uint32_t>& v, uint32_t x) {
  auto it = std::lower_bound(v.begin(), v.end(), x);
  if (it == v.end() || *it != x) v.insert(it, x);
}

void sorted_erase(std::vector<uint32_t>& v, uint32_t x) {
  auto it = std::lower_bound(v.begin(), v.end(), x);
  if (it != v.end() && *it == x) v.erase(it);
}

void take_larger(Peak& p, const Peak& q) {
  if (q.busy_us > p.busy_us) p = q;
}

}  // namespace

Pattern::Pattern(const Router& router, const Calibration& calibration, const LinkShare* share, size_t groups)
    : router_(router),
      total_(router, calibration, share),
      own_(groups),
      transfers_(groups),
      edge_peak_(groups),
      segment_max_(groups),
      peaks_(groups) {}

void Pattern::index(size_t group, const Touched& touched, bool add) {
  const uint32_t g = static_cast<uint32_t>(group);
  for (EdgeId e : touched.edges) {
    if (add) {
      sorted_insert(edge_groups_[e], g);
    } else {
      sorted_erase(edge_groups_[e], g);
    }
  }
  for (uint32_t id : touched.segments) {
    auto [it, fresh] = segment_groups_.try_emplace(id);
    if (fresh)  // the first time this pattern uses the segment: index its hops
      for (const Hop& h : *router_.segment(id).hops) edge_segments_[h.edge].push_back(id);
    if (add) {
      sorted_insert(it->second, g);
    } else {
      sorted_erase(it->second, g);
    }
  }
}

Result<void> Pattern::load(size_t group, std::vector<Transfer> transfers) {
  Touched& own = own_[group];
  if (Result<void> ok = total_.add(transfers, &own); !ok) return ok;
  sort_unique(own.edges);
  sort_unique(own.segments);
  transfers_[group] = std::move(transfers);
  if (indexed_) index(group, own, true);
  moved_.push_back(static_cast<uint32_t>(group));
  return {};
}

Result<void> Pattern::update(size_t group, std::vector<Transfer> transfers, std::vector<Transfer>* replaced) {
  if (!indexed_) {
    for (size_t g = 0; g < own_.size(); ++g) index(g, own_[g], true);
    indexed_ = true;
  }
  // The multiset difference of old and new: a ring that lost one member changes a few hops only.
  auto key = [](const Transfer& t) { return std::tie(t.src, t.dst, t.bytes, t.mode, t.pxn); };
  auto less = [&](const Transfer& a, const Transfer& b) { return key(a) < key(b); };
  std::vector<Transfer> before = transfers_[group], after = transfers;
  std::sort(before.begin(), before.end(), less);
  std::sort(after.begin(), after.end(), less);
  std::vector<Transfer> gone, come;
  std::set_difference(before.begin(), before.end(), after.begin(), after.end(), std::back_inserter(gone), less);
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(come), less);
  Touched delta;
  if (Result<void> ok = total_.remove(gone, &delta); !ok) return ok;
  if (Result<void> ok = total_.add(come, &delta); !ok) return ok;
  changed_edges_.insert(changed_edges_.end(), delta.edges.begin(), delta.edges.end());
  changed_segments_.insert(changed_segments_.end(), delta.segments.begin(), delta.segments.end());
  // What the group lands on now, and the index moved from the old to the new.
  Touched now;
  if (Result<void> ok = total_.touch(transfers, &now); !ok) return ok;
  sort_unique(now.edges);
  sort_unique(now.segments);
  Touched off, on;
  const Touched& was = own_[group];
  std::set_difference(was.edges.begin(), was.edges.end(), now.edges.begin(), now.edges.end(),
                      std::back_inserter(off.edges));
  std::set_difference(was.segments.begin(), was.segments.end(), now.segments.begin(), now.segments.end(),
                      std::back_inserter(off.segments));
  std::set_difference(now.edges.begin(), now.edges.end(), was.edges.begin(), was.edges.end(),
                      std::back_inserter(on.edges));
  std::set_difference(now.segments.begin(), now.segments.end(), was.segments.begin(), was.segments.end(),
                      std::back_inserter(on.segments));
  index(group, off, false);
  index(group, on, true);
  own_[group] = std::move(now);
  if (replaced) *replaced = std::move(transfers_[group]);
  transfers_[group] = std::move(transfers);
  moved_.push_back(static_cast<uint32_t>(group));
  return {};
}

Peak Pattern::edges_peak(size_t group) const {
  Peak best;
  for (EdgeId e : own_[group].edges) take_larger(best, {total_.busy_us(e), e});
  return best;
}

Peak Pattern::segment_peak(uint32_t id) const {
  Peak best;
  for (const Hop& h : *router_.segment(id).hops) take_larger(best, {total_.busy_us(h.edge), h.edge});
  return best;
}

Peak Pattern::segments_peak(size_t group) const {
  Peak best;
  for (uint32_t id : own_[group].segments) take_larger(best, segment_peaks_.at(id));
  return best;
}

void Pattern::refresh() {
  const size_t n = own_.size();
  std::vector<char> edges_dirty(n, 0), segments_dirty(n, 0);
  if (all_) {
    segment_peaks_.clear();
    for (const Touched& t : own_)
      for (uint32_t id : t.segments)
        if (auto [it, fresh] = segment_peaks_.try_emplace(id); fresh) it->second = segment_peak(id);
    std::fill(edges_dirty.begin(), edges_dirty.end(), 1);
    std::fill(segments_dirty.begin(), segments_dirty.end(), 1);
    all_ = false;
  } else {
    // Every link whose load changed: the plain edges and the segments' hops of moved groups.
    std::vector<EdgeId> changed = changed_edges_;
    sort_unique(changed_segments_);
    for (uint32_t id : changed_segments_)
      for (const Hop& h : *router_.segment(id).hops) changed.push_back(h.edge);
    sort_unique(changed);
    std::vector<uint32_t> stale = changed_segments_, raised;  // segments to recompute, or raised in place
    for (EdgeId e : changed) {
      const double b = total_.busy_us(e);
      if (auto it = edge_groups_.find(e); it != edge_groups_.end())
        for (uint32_t g : it->second) edges_dirty[g] = 1;
      if (auto it = edge_segments_.find(e); it != edge_segments_.end())
        for (uint32_t id : it->second) {
          auto p = segment_peaks_.find(id);
          if (p == segment_peaks_.end() || p->second.edge == e) {
            stale.push_back(id);  // its busiest hop changed, maybe down: look again
          } else if (b > p->second.busy_us) {
            p->second = {b, e};
            raised.push_back(id);
          }
        }
    }
    sort_unique(stale);
    for (uint32_t id : stale) segment_peaks_[id] = segment_peak(id);
    raised.insert(raised.end(), stale.begin(), stale.end());
    sort_unique(raised);
    for (uint32_t id : raised)
      if (auto it = segment_groups_.find(id); it != segment_groups_.end())
        for (uint32_t g : it->second) segments_dirty[g] = 1;
    for (uint32_t g : moved_) edges_dirty[g] = segments_dirty[g] = 1;
  }
  for (size_t g = 0; g < n; ++g) {
    if (!edges_dirty[g] && !segments_dirty[g]) continue;
    if (edges_dirty[g]) edge_peak_[g] = edges_peak(g);
    if (segments_dirty[g]) segment_max_[g] = segments_peak(g);
    // Plain edges first, so ties go the way a fresh look over the group's links goes.
    peaks_[g] = edge_peak_[g];
    take_larger(peaks_[g], segment_max_[g]);
  }
  changed_edges_.clear();
  changed_segments_.clear();
  moved_.clear();
}

}  // namespace topoplan

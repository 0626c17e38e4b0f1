#include "planner/pattern.h"

#include <algorithm>
#include <iterator>
#include <limits>
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

// `v`, repeats included, made sorted and unique, with how often each came in `uses`.
template <typename T>
void count_uses(std::vector<T>& v, std::vector<uint32_t>& uses) {
  std::sort(v.begin(), v.end());
  uses.clear();
  size_t n = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (n > 0 && v[n - 1] == v[i]) {
      ++uses.back();
      continue;
    }
    v[n++] = v[i];
    uses.push_back(1);
  }
  v.resize(n);
}

// Sorted unique `keys` with their `uses`, less the uses in `off` and plus those in `on` (unsorted,
// repeats included); the keys no longer used go to `left`, those newly used to `joined`.
template <typename T>
void recount(std::vector<T>& keys, std::vector<uint32_t>& uses, std::vector<T> off, std::vector<T> on,
             std::vector<T>& left, std::vector<T>& joined) {
  std::sort(off.begin(), off.end());
  std::sort(on.begin(), on.end());
  std::vector<T> k;
  std::vector<uint32_t> u;
  k.reserve(keys.size() + on.size());
  u.reserve(keys.size() + on.size());
  size_t i = 0, j = 0, l = 0;
  while (i < keys.size() || j < off.size() || l < on.size()) {
    T x = i < keys.size() ? keys[i] : std::numeric_limits<T>::max();
    if (j < off.size()) x = std::min(x, off[j]);
    if (l < on.size()) x = std::min(x, on[l]);
    const bool had = i < keys.size() && keys[i] == x;
    int64_t n = had ? uses[i++] : 0;
    for (; j < off.size() && off[j] == x; ++j) --n;
    for (; l < on.size() && on[l] == x; ++l) ++n;
    if (n > 0) {
      k.push_back(x);
      u.push_back(static_cast<uint32_t>(n));
      if (!had) joined.push_back(x);
    } else if (had) {
      left.push_back(x);
    }
  }
  keys = std::move(k);
  uses = std::move(u);
}

}  // namespace

Pattern::Pattern(const Router& router, const Calibration& calibration, const LinkShare* share, size_t groups)
    : router_(router),
      total_(router, calibration, share),
      own_(groups),
      edge_uses_(groups),
      segment_uses_(groups),
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
  count_uses(own.edges, edge_uses_[group]);
  count_uses(own.segments, segment_uses_[group]);
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
  auto key = [](const Transfer& t) { return std::tie(t.src, t.dst, t.bytes, t.mode, t.pxn, t.channel, t.connections); };
  auto less = [&](const Transfer& a, const Transfer& b) { return key(a) < key(b); };
  std::vector<Transfer> before = transfers_[group], after = transfers;
  std::sort(before.begin(), before.end(), less);
  std::sort(after.begin(), after.end(), less);
  std::vector<Transfer> gone, come;
  std::set_difference(before.begin(), before.end(), after.begin(), after.end(), std::back_inserter(gone), less);
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(come), less);
  // What the transfers that went and came land on, repeats included: the group's uses of each
  // link change by those alone, so the rest of its transfers need no routing again.
  Touched off, on;
  if (Result<void> ok = total_.remove(gone, &off); !ok) return ok;
  if (Result<void> ok = total_.add(come, &on); !ok) return ok;
  changed_edges_.insert(changed_edges_.end(), off.edges.begin(), off.edges.end());
  changed_edges_.insert(changed_edges_.end(), on.edges.begin(), on.edges.end());
  changed_segments_.insert(changed_segments_.end(), off.segments.begin(), off.segments.end());
  changed_segments_.insert(changed_segments_.end(), on.segments.begin(), on.segments.end());
  Touched left, joined;  // what the group no longer uses, and uses now but did not
  Touched& own = own_[group];
  recount(own.edges, edge_uses_[group], off.edges, on.edges, left.edges, joined.edges);
  recount(own.segments, segment_uses_[group], off.segments, on.segments, left.segments, joined.segments);
  index(group, left, false);
  index(group, joined, true);
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

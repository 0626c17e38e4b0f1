#include "planner/pattern.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <tuple>

#include "base/sort_unique.h"

namespace topoplan {
namespace {

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

// Sorted unique `keys` with their `uses`, less the uses in `off` and plus those in `on` (repeats
// included; both get sorted); the keys no longer used go to `left`, those newly used to
// `joined`, both ascending. `k` and `u` are scratch, swapped with keys and uses.
template <typename T>
void recount(std::vector<T>& keys, std::vector<uint32_t>& uses, std::vector<T>& off, std::vector<T>& on,
             std::vector<T>& left, std::vector<T>& joined, std::vector<T>& k, std::vector<uint32_t>& u) {
  std::sort(off.begin(), off.end());
  std::sort(on.begin(), on.end());
  // A few changes among many keys (a ring with one member swapped): each key found by bisection
  // and changed in place, where a merge would copy every key.
  if (4 * (off.size() + on.size()) < keys.size()) {
    size_t j = 0, l = 0, from = 0;
    while (j < off.size() || l < on.size()) {
      const T x = j < off.size() && (l == on.size() || off[j] < on[l]) ? off[j] : on[l];
      int64_t n = 0;
      for (; j < off.size() && off[j] == x; ++j) --n;
      for (; l < on.size() && on[l] == x; ++l) ++n;
      const size_t at = static_cast<size_t>(
          std::lower_bound(keys.begin() + static_cast<std::ptrdiff_t>(from), keys.end(), x) - keys.begin());
      const bool had = at < keys.size() && keys[at] == x;
      if (had) n += uses[at];
      if (n > 0 && had) {
        uses[at] = static_cast<uint32_t>(n);
      } else if (n > 0) {
        keys.insert(keys.begin() + static_cast<std::ptrdiff_t>(at), x);
        uses.insert(uses.begin() + static_cast<std::ptrdiff_t>(at), static_cast<uint32_t>(n));
        joined.push_back(x);
      } else if (had) {
        keys.erase(keys.begin() + static_cast<std::ptrdiff_t>(at));
        uses.erase(uses.begin() + static_cast<std::ptrdiff_t>(at));
        left.push_back(x);
      }
      from = at;
    }
    return;
  }
  k.clear();
  u.clear();
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
  keys.swap(k);
  uses.swap(u);
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
      peaks_(groups),
      edge_slot_(router.cluster().num_edges()),
      edge_epoch_(router.cluster().num_edges()) {}

Pattern::EdgeIndex& Pattern::edge_index(EdgeId e) {
  uint32_t& slot = edge_slot_[e];
  if (slot == 0) {
    edges_.emplace_back();
    slot = static_cast<uint32_t>(edges_.size());
  }
  return edges_[slot - 1];
}

const Pattern::EdgeIndex* Pattern::edge_index_if(EdgeId e) const {
  const uint32_t slot = edge_slot_[e];
  return slot ? &edges_[slot - 1] : nullptr;
}

Pattern::SegmentIndex& Pattern::segment_index(uint32_t id) {
  if (id >= segments_.size()) segments_.resize(id + 1);
  return segments_[id];
}

void Pattern::split(uint32_t id) {
  if (segments_[id].split) return;
  segments_[id].split = true;
  // Router's parts split a segment by the tiers its hops join, and by share; here only the
  // links count, so parts with the same links are one.
  for (uint32_t hops : router_.segment_parts(id)) {
    if (hops >= part_of_hops_.size()) part_of_hops_.resize(hops + 1, UINT32_MAX);
    uint32_t& part = part_of_hops_[hops];
    if (part == UINT32_MAX) {
      std::vector<EdgeId> edges;
      for (const Hop& h : router_.part(hops)) edges.push_back(h.edge);
      sort_unique(edges);
      auto [at, fresh] = part_at_.try_emplace(std::move(edges), static_cast<uint32_t>(parts_.size()));
      if (fresh) {
        parts_.emplace_back();
        for (EdgeId e : at->first) edge_index(e).parts.push_back(at->second);
      }
      part = at->second;
    }
    parts_[part].segments.push_back(id);
    segments_[id].parts.push_back(part);
  }
}

void Pattern::index(size_t group, const Touched& touched, bool add) {
  const uint32_t g = static_cast<uint32_t>(group);
  for (EdgeId e : touched.edges) {
    if (add) {
      sorted_insert(edge_index(e).groups, g);
    } else {
      sorted_erase(edge_index(e).groups, g);
    }
  }
  for (uint32_t id : touched.segments) {
    segment_index(id);
    if (add) {
      split(id);
      sorted_insert(segments_[id].groups, g);
    } else {
      sorted_erase(segments_[id].groups, g);
    }
  }
}

Result<void> Pattern::load(size_t group, std::vector<Transfer> transfers) {
  // Gathered in scratch, then kept at their size: grown a transfer at a time, a data-parallel
  // group's lists were reallocated a dozen times over, a pipeline pair's half a dozen.
  Touched& x = scratch_.gathered;
  x.edges.clear();
  x.segments.clear();
  if (Result<void> ok = total_.add(transfers, &x); !ok) return ok;
  Touched& own = own_[group];
  auto keep = [&](std::vector<uint32_t>& uses) {
    if (std::any_of(scratch_.uses.begin(), scratch_.uses.end(), [](uint32_t n) { return n != 1; }))
      uses.assign(scratch_.uses.begin(), scratch_.uses.end());
  };
  count_uses(x.edges, scratch_.uses);
  own.edges.assign(x.edges.begin(), x.edges.end());
  keep(edge_uses_[group]);
  count_uses(x.segments, scratch_.uses);
  own.segments.assign(x.segments.begin(), x.segments.end());
  keep(segment_uses_[group]);
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
  Scratch& x = scratch_;
  x.before.assign(transfers_[group].begin(), transfers_[group].end());
  x.after.assign(transfers.begin(), transfers.end());
  std::sort(x.before.begin(), x.before.end(), less);
  std::sort(x.after.begin(), x.after.end(), less);
  x.gone.clear();
  x.come.clear();
  std::set_difference(x.before.begin(), x.before.end(), x.after.begin(), x.after.end(), std::back_inserter(x.gone),
                      less);
  std::set_difference(x.after.begin(), x.after.end(), x.before.begin(), x.before.end(), std::back_inserter(x.come),
                      less);
  // What the transfers that went and came land on, repeats included: the group's uses of each
  // link change by those alone, so the rest of its transfers need no routing again.
  for (Touched* t : {&x.off, &x.on, &x.left, &x.joined}) {
    t->edges.clear();
    t->segments.clear();
  }
  if (Result<void> ok = total_.remove(x.gone, &x.off); !ok) return ok;
  if (Result<void> ok = total_.add(x.come, &x.on); !ok) return ok;
  changed_edges_.insert(changed_edges_.end(), x.off.edges.begin(), x.off.edges.end());
  changed_edges_.insert(changed_edges_.end(), x.on.edges.begin(), x.on.edges.end());
  changed_segments_.insert(changed_segments_.end(), x.off.segments.begin(), x.off.segments.end());
  changed_segments_.insert(changed_segments_.end(), x.on.segments.begin(), x.on.segments.end());
  // What the group no longer uses (left), and uses now but did not (joined).
  Touched& own = own_[group];
  for (auto [keys, uses] : {std::pair{&own.edges, &edge_uses_[group]}, std::pair{&own.segments, &segment_uses_[group]}})
    if (uses->size() != keys->size()) uses->assign(keys->size(), 1);  // each used once (load)
  recount(own.edges, edge_uses_[group], x.off.edges, x.on.edges, x.left.edges, x.joined.edges, x.keys, x.uses);
  recount(own.segments, segment_uses_[group], x.off.segments, x.on.segments, x.left.segments, x.joined.segments, x.keys,
          x.uses);
  index(group, x.left, false);
  index(group, x.joined, true);
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
  for (uint32_t id : own_[group].segments) take_larger(best, segments_[id].peak);
  return best;
}

void Pattern::reshare(const LinkShare* old, const LinkShare* share) {
  total_.reshare(old, share);
  all_ = true;
  refresh();
}

void Pattern::refresh() {
  const size_t n = own_.size();
  edges_dirty_.assign(n, 0);
  segments_dirty_.assign(n, 0);
  if (all_) {
    for (SegmentIndex& s : segments_) s.known = false;
    for (const Touched& t : own_)
      for (uint32_t id : t.segments)
        if (SegmentIndex& s = segment_index(id); !s.known) {
          s.known = true;
          s.peak = segment_peak(id);
        }
    std::fill(edges_dirty_.begin(), edges_dirty_.end(), 1);
    std::fill(segments_dirty_.begin(), segments_dirty_.end(), 1);
    all_ = false;
  } else {
    // Every link whose load changed: the plain edges and the segments' hops of moved groups.
    // Segments share hops (a leaf's uplinks): an epoch stamp per edge drops the repeats.
    if (++epoch_ == 0) {
      edge_epoch_ = ZeroedArray<uint32_t>(edge_epoch_.size());
      for (Part& p : parts_) p.epoch = 0;
      for (SegmentIndex& s : segments_) s.epoch = 0;
      epoch_ = 1;
    }
    std::vector<EdgeId>& changed = changed_hops_;
    changed.clear();
    auto note = [&](EdgeId e) {
      if (edge_epoch_[e] != epoch_) {
        edge_epoch_[e] = epoch_;
        changed.push_back(e);
      }
    };
    for (EdgeId e : changed_edges_) note(e);
    sort_unique(changed_segments_);
    for (uint32_t id : changed_segments_)
      for (const Hop& h : *router_.segment(id).hops) note(h.edge);
    // The parts holding a changed link, each with its busiest changed hop, then their segments.
    // Ties go to the lower edge id, so the order links are looked at in does not matter.
    auto busier = [](const Peak& a, const Peak& b) {
      return a.busy_us > b.busy_us || (a.busy_us == b.busy_us && a.edge < b.edge);
    };
    hit_parts_.clear();
    for (EdgeId e : changed)
      if (const EdgeIndex* at = edge_index_if(e)) {
        for (uint32_t g : at->groups) edges_dirty_[g] = 1;
        const Peak here{total_.busy_us(e), e};
        for (uint32_t id : at->parts) {
          Part& part = parts_[id];
          if (part.epoch != epoch_) {
            part.epoch = epoch_;
            part.top = here;
            hit_parts_.push_back(id);
          } else if (busier(here, part.top)) {
            part.top = here;
          }
        }
      }
    hit_segments_.clear();
    for (uint32_t id : hit_parts_)
      for (uint32_t seg : parts_[id].segments)
        if (SegmentIndex& s = segments_[seg]; s.epoch != epoch_) {
          s.epoch = epoch_;
          hit_segments_.push_back(seg);
        }
    // Hit segments some group uses: recomputed when their busiest hop changed (maybe down), else
    // raised to the busiest changed hop above it. A segment no group uses is left alone, and
    // looked at afresh when one does (it is then among the changed segments).
    std::vector<uint32_t>& stale = changed_segments_;
    raised_.clear();
    for (uint32_t id : hit_segments_) {
      SegmentIndex& s = segments_[id];
      if (s.groups.empty()) {
        s.known = false;
        continue;
      }
      if (!s.known || edge_epoch_[s.peak.edge] == epoch_) {
        stale.push_back(id);
        continue;
      }
      Peak top{-1, 0};
      for (uint32_t part : s.parts)
        if (parts_[part].epoch == epoch_ && busier(parts_[part].top, top)) top = parts_[part].top;
      if (top.busy_us > s.peak.busy_us) {
        s.peak = top;
        raised_.push_back(id);
      }
    }
    sort_unique(stale);
    for (uint32_t id : stale) {
      SegmentIndex& s = segment_index(id);
      s.known = true;
      s.peak = segment_peak(id);
    }
    raised_.insert(raised_.end(), stale.begin(), stale.end());
    sort_unique(raised_);
    for (uint32_t id : raised_)
      for (uint32_t g : segments_[id].groups) segments_dirty_[g] = 1;
    for (uint32_t g : moved_) edges_dirty_[g] = segments_dirty_[g] = 1;
  }
  for (size_t g = 0; g < n; ++g) {
    if (!edges_dirty_[g] && !segments_dirty_[g]) continue;
    if (edges_dirty_[g]) edge_peak_[g] = edges_peak(g);
    if (segments_dirty_[g]) segment_max_[g] = segments_peak(g);
    // Plain edges first, so ties go the way a fresh look over the group's links goes.
    peaks_[g] = edge_peak_[g];
    take_larger(peaks_[g], segment_max_[g]);
  }
  changed_edges_.clear();
  changed_segments_.clear();
  moved_.clear();
}

}  // namespace topoplan

// Internal to planner/score_state: the groups of one or more traffic items that put the same
// transfers on the links, with every group's busiest link kept current as groups move. Only what a
// move changed is looked at again: the links it loaded or unloaded, the fabric segments that share
// those links, and the groups that use either.
#pragma once

#include <map>
#include <vector>

#include "base/zeroed_array.h"
#include "cost/link_load.h"
#include "cost/transfers.h"

namespace topoplan {

struct Peak {
  double busy_us = 0;
  EdgeId edge = 0;
};

class Pattern {
 public:
  Pattern(const Router& router, const Calibration& calibration, const LinkShare* share, size_t groups);

  // A group's first transfers onto the links.
  Result<void> load(size_t group, std::vector<Transfer> transfers);
  // A group's transfers replaced: only those that differ come off and go on the links. The ones
  // replaced go to `replaced` when given.
  Result<void> update(size_t group, std::vector<Transfer> transfers, std::vector<Transfer>* replaced = nullptr);
  // Brings every group's busiest link up to date with the loads and unloads since the last call.
  void refresh();
  // The same transfers on another share of the links (LinkLoad::reshare), every group's busiest
  // link looked at afresh.
  void reshare(const LinkShare* old, const LinkShare* share);

  const Peak& peak(size_t group) const { return peaks_[group]; }
  const LinkLoad& total() const { return total_; }
  LinkLoad& total() { return total_; }
  const Touched& touched(size_t group) const { return own_[group]; }
  const std::vector<Transfer>& transfers(size_t group) const { return transfers_[group]; }

 private:
  Peak edges_peak(size_t group) const;
  Peak segments_peak(size_t group) const;
  Peak segment_peak(uint32_t id) const;
  void index(size_t group, const Touched& touched, bool add);

  const Router& router_;
  LinkLoad total_;
  std::vector<Touched> own_;
  // Per group, parallel to its touched edges and segments: how many of its transfers' hops use
  // each; empty while each is used once (a pipeline pair's, most of a score's groups).
  std::vector<std::vector<uint32_t>> edge_uses_, segment_uses_;
  std::vector<std::vector<Transfer>> transfers_;
  // Per group: its busiest plain edge, its busiest segment, and the larger of the two.
  std::vector<Peak> edge_peak_, segment_max_, peaks_;
  // Who uses what: per link (by slot: edge_slot_ holds slot + 1, 0 for none) the groups whose
  // own edges include it; per segment (by Router's id) the groups using it and its busiest hop.
  // Groups sorted.
  // A segment's hops come in parts by the tiers they join (a leaf's uplinks, a pod's spines up,
  // the cores down to a pod, ...); segments share parts (every segment from a leaf climbs its
  // uplinks), so a refresh finds the segments a changed link is in through the few parts that
  // hold it, not by looking at every segment's hops.
  struct EdgeIndex {
    std::vector<uint32_t> groups;
    std::vector<uint32_t> parts;
  };
  struct Part {
    std::vector<uint32_t> segments;
    Peak top;            // this refresh's busiest changed hop in it
    uint32_t epoch = 0;  // == epoch_: top is this refresh's
  };
  struct SegmentIndex {
    std::vector<uint32_t> groups;
    std::vector<uint32_t> parts;  // made when a group first uses it
    bool split = false;
    Peak peak;
    bool known = false;  // peak is current
    uint32_t epoch = 0;  // == epoch_: a hop of it changed in this refresh
  };
  EdgeIndex& edge_index(EdgeId e);
  const EdgeIndex* edge_index_if(EdgeId e) const;
  SegmentIndex& segment_index(uint32_t id);
  void split(uint32_t id);  // a segment's parts, made when a group first uses it
  ZeroedArray<uint32_t> edge_slot_;
  std::vector<EdgeIndex> edges_;
  std::vector<SegmentIndex> segments_;
  std::vector<Part> parts_;
  std::map<std::vector<EdgeId>, uint32_t> part_at_;  // by its links, sorted
  std::vector<uint32_t> part_of_hops_;               // by Router::part id; UINT32_MAX: not seen
  // Since the last refresh.
  std::vector<EdgeId> changed_edges_;
  std::vector<uint32_t> changed_segments_, moved_;
  // Scratch of load, update and refresh, kept to save allocations.
  struct Scratch {
    std::vector<Transfer> before, after, gone, come;
    Touched off, on, left, joined;
    Touched gathered;  // load's, before they are counted and kept
    std::vector<uint32_t> keys, uses;
  };
  Scratch scratch_;
  std::vector<char> edges_dirty_, segments_dirty_;
  std::vector<uint32_t> raised_, hit_parts_, hit_segments_;
  std::vector<EdgeId> changed_hops_;
  ZeroedArray<uint32_t> edge_epoch_;  // == epoch_: in changed_hops_ already
  uint32_t epoch_ = 0;
  bool all_ = true;       // nothing refreshed yet
  bool indexed_ = false;  // the indexes exist (built on the first update: a one-off score needs none)
};

}  // namespace topoplan

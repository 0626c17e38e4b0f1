// Bytes per direction on every physical link, accumulated from routed transfers, and how long each
// link needs to drain them at the bandwidth NCCL gets from it (Calibration). Dense per edge id, so
// adding the transfers of thousands of groups stays cheap. Routes between hosts come in the parts the
// router keeps (Router::fabric_parts); the rest are cached per endpoint pair.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "base/zeroed_array.h"
#include "cost/calibration.h"
#include "cost/link_share.h"
#include "cost/transfers.h"
#include "topology/locality.h"
#include "topology/routing.h"

namespace topoplan {

// Bytes by the highest fabric level they climb to (topology/locality.h link_level).
using LevelBytes = std::array<double, kFabricLevels>;

// What one caller's transfers landed on, repeats included: single edges, and fabric segments
// (Router::segment) whose every hop carries a share.
struct Touched {
  std::vector<EdgeId> edges;
  std::vector<uint32_t> segments;
};

// Where a transfer's connections go: as the fabric routes them (hash, static: each on one path), or
// split evenly over the equal-cost paths whatever the routing, which is what hashing gives on
// average (the expected load beside the hashed one).
enum class Spread : uint8_t { routed, even };

class LinkLoad {
 public:
  // `share`, when given, is the part of each link the job gets (a shared fabric); it must outlive
  // the load.
  LinkLoad(const Router& router, const Calibration& calibration, const LinkShare* share = nullptr,
           Spread spread = Spread::routed);

  // Routes the transfer and adds its bytes to every hop (ECMP shares included); under hash routing
  // each of its connections is routed on its own with its part of the bytes. A GPU and its
  // NVSwitch (multimem) are one link.
  // `touched`, when given, gets what the bytes land on appended.
  Result<void> add(const Transfer& t, Touched* touched = nullptr);
  Result<void> add(const std::vector<Transfer>& transfers, Touched* touched = nullptr);
  // Another load's bytes and busy time, times `scale` (loads scale with the size).
  void add(const LinkLoad& other, double scale = 1);
  // Takes the transfers' bytes back off (incremental re-scoring moves a group elsewhere).
  Result<void> remove(const std::vector<Transfer>& transfers, Touched* touched = nullptr);
  void clear();
  // The same bytes on another share of the links (null: whole links), which must outlive the
  // load: each link's busy time scales by the old share over the new, as its rate does. `old`
  // is the share the load was filled under (null: whole), for a share changed in place.
  void reshare(const LinkShare* old, const LinkShare* share);

  double bytes(EdgeId e) const {
    flush();
    return bytes_[e];
  }
  // Microseconds the link needs for its bytes at its effective bandwidth.
  double busy_us(EdgeId e) const {
    flush();
    return busy_us_[e];
  }
  // Every edge carrying bytes, in the order they were first loaded.
  const std::vector<EdgeId>& loaded() const {
    flush();
    return loaded_;
  }
  // The one-way DCI latency of the worst route added (propagation included), 0 without DCI.
  double dci_latency_us() const { return dci_latency_us_; }
  // Worst path class of the routes added.
  PathClass worst_class() const { return worst_class_; }

  struct Peak {
    bool any = false;
    EdgeId edge = 0;
    double bytes = 0, busy_us = 0, effective_GBps = 0;
  };
  // The link that takes longest to drain; ties to the lower edge id, so reports are stable.
  Peak busiest() const;

  // Takes the other load's rates per link (computed on first use, shared from now on): one table
  // for every load on the same router, calibration and share, not one each. Throws
  // std::logic_error when `other` differs in any of those.
  void rates_from(const LinkLoad& other);

  const Router& router() const { return router_; }
  const Calibration& calibration() const { return cal_; }
  const LinkShare* share() const { return share_; }
  // Counts bytes per fabric level from now on; `levels` (link_level per edge id) must outlive the load.
  void count_levels(const std::vector<uint8_t>* levels) { levels_ = levels; }
  // loaded() may list links in any order from now on (a load read for its busiest link): fabric
  // segments then spread part by part (Router::part), each link's bytes and busy time the same
  // to the bit. Not with count_levels, whose sums run in loading order.
  void any_order() { any_order_ = true; }
  const LevelBytes& level_bytes() const {
    flush();
    return level_bytes_;
  }

 private:
  // Inline with the rate's cached path: tens of millions of calls per plan search.
  void add_edge(EdgeId e, double bytes, FlowMode mode) const {
    if (!is_loaded_[e]) {
      is_loaded_[e] = true;
      loaded_.push_back(e);
    }
    bytes_[e] += bytes;
    busy_us_[e] += bytes / (1000.0 * rate_GBps(e, mode));  // GB/s = 1e3 bytes per microsecond
    if (levels_) level_bytes_[(*levels_)[e]] += bytes;
  }
  // What a flow of this mode gets from the edge, GB/s: its line rate times the fraction
  // Calibration gives that mode and kind of link, times the job's share.
  double rate_GBps(EdgeId e, FlowMode mode) const {
    const ZeroedArray<double>& cache = rates_->by_mode[static_cast<size_t>(mode)];
    if (cache.size() != 0)
      if (const double rate = cache[e]; rate != 0) return rate;
    return rate_first(e, mode);
  }
  double rate_first(EdgeId e, FlowMode mode) const;  // computes and keeps it
  Result<void> add_scaled(const Transfer& t, double sign, Touched* touched);
  void add_parts(const FabricParts& parts, double bytes, FlowMode mode, Touched* touched);
  // Spreads the bytes waiting on fabric segments over their hops: flows between the same leaves
  // are summed first, so each segment's ECMP fan-out is walked once, not once per flow.
  void flush() const {
    if (pending_.empty()) return;
    if (any_order_ && !levels_) {
      spread_by_part();
    } else {
      spread();
    }
  }
  // The pending segments in Segment::order, taken off pending_.
  struct Pending {
    uint64_t order;
    uint32_t id;
    double bytes;
  };
  const std::vector<Pending>& pending_in_order() const;
  void spread() const;
  void spread_by_part() const;
  const Route* route(VertexId a, VertexId b, bool pxn, std::optional<uint32_t> flow, std::string* error);

  const Router& router_;
  const Calibration& cal_;
  const LinkShare* share_;
  // Connections take their own paths (hash or static routing, Spread::routed); else every route
  // is the equal-cost set with its shares.
  bool per_connection_ = false;
  mutable ZeroedArray<double> bytes_, busy_us_;
  mutable std::vector<EdgeId> loaded_;
  mutable std::vector<bool> is_loaded_;
  // rate_GBps per flow mode and edge, computed on first use (every byte added asks); 0 until
  // computed, empty until needed. Shared with the loads rates_from joined.
  struct Rates {
    std::array<ZeroedArray<double>, 2> by_mode;
  };
  std::shared_ptr<Rates> rates_;
  const std::vector<uint8_t>* levels_ = nullptr;
  mutable LevelBytes level_bytes_{};                      // per edge: in loaded_ (bytes may come back off to zero)
  mutable std::unordered_map<uint32_t, double> pending_;  // segment -> bytes
  mutable std::vector<Pending> pending_order_;            // pending_in_order's
  bool any_order_ = false;
  // spread_by_part's scratch: per Router part the bytes of each pending segment over it, in
  // pending order, and the hops that take bytes from elsewhere too; per edge a count of the
  // pending parts' hops on it.
  struct PartScratch {
    std::vector<std::vector<double>> bytes;
    std::vector<std::vector<Hop>> mixed;
    std::vector<uint32_t> pending;
    ZeroedArray<uint32_t> hops_on;
  };
  mutable PartScratch parts_;
  double dci_latency_us_ = 0;
  PathClass worst_class_ = PathClass::LOC;
  struct RouteKey {
    VertexId a, b;
    uint32_t flow;  // UINT32_MAX: the equal-cost set
    bool pxn;
    bool operator==(const RouteKey&) const = default;
  };
  struct RouteKeyHash {
    size_t operator()(const RouteKey& k) const {
      return std::hash<uint64_t>()((uint64_t{k.a} << 32 | k.b) ^ (uint64_t{k.flow} << 17) ^
                                   (k.pxn ? uint64_t{1} << 63 : 0));
    }
  };
  std::unordered_map<RouteKey, Route, RouteKeyHash> routes_;
  // Routes across a large fabric carry every ECMP hop; a job's traffic touches hundreds of
  // thousands of endpoint pairs, so the cache is dropped once it holds this many hops (64 MiB).
  static constexpr size_t kMaxCachedHops = size_t{1} << 22;
  size_t cached_hops_ = 0;
};

}  // namespace topoplan

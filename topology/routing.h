// Routes between GPUs (or NICs): inside a host or scale-up domain the best local path, NCCL-style;
// between hosts up/down (valley-free) routing over the whole set of equal-cost paths. How a flow
// uses them is the fabric's routing (Cluster::routing): adaptive splits its bytes evenly per hop;
// hash and static put each connection on one of them. Fabric path sets are cached per (source
// switch, destination leaf set), never per GPU pair, so routing a 100,000-GPU cluster stays cheap.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/zeroed_array.h"
#include "topology/cluster.h"
#include "topology/down.h"

namespace topoplan {

// A directed edge carrying `share` of the flow's bytes.
struct Hop {
  EdgeId edge;
  double share;
  bool operator==(const Hop&) const = default;
};

struct Route {
  VertexId src = kNoVertex, dst = kNoVertex;
  PathClass path_class = PathClass::LOC;
  double bw_GBps = 0;                                 // the flow's ceiling: min over hops of bw / share
  EdgeId bottleneck = 0;                              // the hop that sets bw_GBps (meaningless for LOC)
  double latency_us = 0;                              // the longest of the equal-cost paths
  double paths = 1;                                   // number of distinct equal-cost paths
  std::vector<Hop> hops;                              // in path order; ECMP fans out into several hops per stage
  VertexId src_nic = kNoVertex, dst_nic = kNoVertex;  // set on NET/DCI routes
  // With RouteOptions::segments, the switch-to-switch part shared by every flow from one leaf
  // to one leaf set is left out of `hops` and named here (Router::segment), carrying
  // `segment_share` of the bytes; bw_GBps, bottleneck and path_class still count it.
  uint32_t segment = kNoSegment;
  double segment_share = 0;
  static constexpr uint32_t kNoSegment = UINT32_MAX;
};

// A fabric segment: the equal-cost switch-to-switch hops from one switch to one leaf set.
struct Segment {
  const std::vector<Hop>* hops = nullptr;
  double dci_latency_us = 0;  // share-weighted one-way latency of its DCI hops
  bool crosses_dci = false;
  // Fixed by the cluster (its first switch and target leaves), where ids number segments in the
  // order routes first met them: loads spread segments in this order, so their sums do not
  // depend on what was routed before.
  uint64_t order = 0;
};

// How a GPU picks its NIC for traffic leaving the host.
enum class NicPolicy {
  rail_aligned,  // its own nearest NIC (NCCL's default: GPU i uses NIC i on a DGX)
  pxn,           // the NIC on the destination's rail, reached over NVLink through a peer GPU
};

struct RouteOptions {
  NicPolicy nic = NicPolicy::rail_aligned;
  // Name the fabric part instead of listing it: many flows between the same leaves then add
  // their bytes once per segment (LinkLoad), not once per ECMP hop.
  bool segments = false;
  // One connection's path where the fabric's routing is hash or static: the index that tells the
  // connections between the same two NICs apart (NCCL's channel, or a peer's queue pair), which
  // hash routing hashes with the NICs. Without it, or under adaptive routing, the route is the
  // whole equal-cost set with its even shares.
  std::optional<uint32_t> flow;
};

// An adaptive route between GPUs of different hosts, in the parts the router keeps (valid until
// its next call): what a load adds for each of a million GPU pairs without building a Route each.
// The hops are those Router::route lists, in its order.
struct FabricParts {
  std::span<const EdgeId> src_local;  // from the source to its NIC
  std::span<const Hop> fabric;        // NIC to NIC, less the named segment
  uint32_t segment = Route::kNoSegment;
  double segment_share = 0;
  std::span<const EdgeId> dst_local;  // from the destination to its NIC: the route takes them reversed, last first
  PathClass path_class = PathClass::NET;
};

// "hash (RoCE ECMP: ...; set by the cluster file)": the mode, what it means, and who said so or
// that it is the default.
std::string routing_text(const FabricRouting& routing);

class Router {
 public:
  // Routes avoid what `down` marks (devices and links out of service); it is copied.
  explicit Router(const Cluster& cluster, const DownSet& down = {});

  // Endpoints are GPUs or NICs. Errors only for endpoints of another kind or a fabric that has no
  // up/down path between them (an explicit graph without tiers, say).
  Result<Route> route(VertexId a, VertexId b, RouteOptions options = {}) const;
  // The earlier host this one is built like, and the vertex offset from its devices to this
  // one's: their devices and local links match one for one, so whatever is made of those alone
  // carries over, shifted. Nullopt for a host like no earlier one.
  std::optional<std::pair<int, uint32_t>> host_twin(int host) const;
  // route(a, b, {nic, true}) as parts, when the route leaves through the fabric under adaptive
  // routing or as the equal-cost set, or joins two GPUs of one host or NVLink domain through an
  // NVSwitch (the GPU's uplink then the other's downlink, as src_local); nullopt for other
  // endpoints on one host or NVLink domain.
  Result<std::optional<FabricParts>> fabric_parts(VertexId a, VertexId b, NicPolicy nic) const;
  // The NIC a GPU uses for inter-host traffic: best path class, then bandwidth, then same index.
  VertexId nic_for(VertexId gpu) const;
  // The class of the local path from a GPU to a NIC of its host (cached; PXN counts), or nullopt
  // when there is none.
  std::optional<PathClass> gpu_nic_class(VertexId gpu, VertexId nic) const;
  size_t cached_switch_paths() const { return cache_.size(); }
  Segment segment(uint32_t id) const;
  // A segment's hops in parts by the tiers they join (a leaf's uplinks, a pod's spines to the
  // cores, the cores down to a pod, ...), each part kept once for every segment with those hops
  // and shares (part): loads spread a part's bytes once for all segments over it. Made on first
  // asking: a score spreads a few segments by part, a plan's search indexes those it moves.
  const std::vector<uint32_t>& segment_parts(uint32_t id) const;
  const std::vector<Hop>& part(uint32_t id) const { return *parts_[id]; }  // by edge id
  const Cluster& cluster() const { return c_; }

 private:
  struct LocalPath {
    std::vector<EdgeId> edges;
    PathClass path_class = PathClass::LOC;
    double bw_GBps = 0;
    double latency_us = 0;
    bool found = false;
  };
  // A switch's equal-cost next hops toward the leaf set, hops[begin, end), by phase: climbing
  // still, or on the way down (a switch may be both, from different sources).
  struct Fan {
    uint32_t key = 0;  // vertex << 1 | down (at most 2^23 devices, limits.h)
    uint32_t begin = 0, end = 0;
  };
  // Equal-cost paths from a switch to any switch of a NIC's leaf set.
  struct SwitchPaths {
    bool reachable = false;
    int length = 0;                  // switch hops
    std::vector<Hop> hops;           // switch-to-switch edges, each switch's next hops together
    std::vector<Fan> fans;           // by key; only under hash or static routing, which walk them
    std::vector<double> exit_share;  // per leaf of the target leaf set
    double paths = 0;
    double latency_us = 0;
    uint32_t id = 0;              // index into segments_
    uint64_t order = 0;           // Segment::order
    std::vector<uint32_t> parts;  // segment_parts, once made
    bool split = false;           // parts made
    double dci_latency_us = 0;
    bool crosses_dci = false;
  };

  // The first strict minimum of bw / share over hops in path order: the flow's ceiling.
  struct Ceiling {
    double bw_GBps = 1e300;
    EdgeId edge = 0;
    bool dci = false;
    void take(const Cluster& c, EdgeId e, double share);
    void take(const Ceiling& later);
  };
  // What every equal-cost route from one origin to one leaf set shares. The origin is a NIC's
  // only leaf switch, so the NICs under a leaf share it, or a NIC with several uplinks.
  struct Reach {
    bool reachable = false;
    std::vector<Hop> hops;  // a NIC origin's first hops, and switch hops not named as a segment
    uint32_t segment = Route::kNoSegment;
    double segment_share = 0;
    std::vector<double> exit;  // per leaf of the set
    double paths = 0;
    double latency_us = 0;    // from a switch origin: its part, the NIC's uplink not counted
    Ceiling segment_ceiling;  // over the named segment's hops
  };
  // A fabric route's parts: the local paths, the reach, and hops_ holding the NIC's uplink (from a
  // switch origin), the reach's hops and the hops into the destination NIC.
  struct Legs {
    const LocalPath* src = nullptr;
    const LocalPath* dst = nullptr;
    const Reach* reach = nullptr;
    double fabric_latency_us = 0, last_hop_latency_us = 0;
  };

  LocalPath local_path(VertexId a, VertexId b) const;
  const LocalPath& gpu_nic_path(VertexId gpu, VertexId nic) const;
  // Hosts built alike (a preset's nodes, one after another) have the same local paths, shifted:
  // a host's twin is the first host whose devices and links match its own one for one at fixed
  // vertex and edge offsets, nothing down in either and no local link leaving either.
  struct Twin {
    int32_t host = -1;  // the host copied; -1 for none
    uint32_t dv = 0;    // vertex offset (modulo 2^32)
    uint32_t de = 0;    // edge offset
  };
  void find_twins();
  // The twin shift for a path between two devices of one host, or nullptr when there is none.
  const Twin* twin_of(VertexId a, VertexId b) const;
  VertexId pxn_relay(VertexId nic) const;
  const SwitchPaths& switch_paths(VertexId from, uint32_t leafset) const;
  // The switches above a source switch (itself included) by tier, highest first; cached.
  const std::vector<VertexId>& up_cone(VertexId from) const;
  // The switches above a leaf set in breadth-first order, each with its up-only distance from
  // the set and its down edges one step nearer it (toward[toward_begin[i], toward_begin[i + 1]),
  // in edge order); cached.
  struct TargetCone {
    std::vector<VertexId> order;
    std::vector<int> dist;
    std::vector<uint32_t> toward_begin;
    std::vector<EdgeId> toward;
  };
  const TargetCone& target_cone(uint32_t leafset) const;
  // The NIC's uplinks (indices into up_) on the shortest up/down paths to the leaf set; none when
  // it has no path there.
  std::vector<uint32_t> first_hops(VertexId nic, uint32_t leafset) const;
  // The legs' local paths (none at an end that is its NIC), or why the route cannot be had.
  Result<Legs> fabric_ends(VertexId src, VertexId nic_a, VertexId nic_b, VertexId dst) const;
  bool one_uplink(VertexId nic) const;  // cabled to a single leaf switch
  Error no_updown(VertexId nic_a, VertexId nic_b) const;
  const Reach& reach(VertexId nic, uint32_t leafset, bool segments) const;
  Result<Legs> legs(VertexId src, VertexId nic_a, VertexId nic_b, VertexId dst, bool segments) const;
  Result<std::pair<VertexId, VertexId>> nics(VertexId a, VertexId b, NicPolicy policy) const;
  Result<Route> fabric_route(VertexId src, VertexId nic_a, VertexId nic_b, VertexId dst,
                             const RouteOptions& options) const;
  // Which of n equal-cost next hops at `at` connection `flow` from nic_a to nic_b takes (hash or
  // static routing).
  size_t next_hop(VertexId at, size_t n, uint64_t flow_hash, VertexId nic_b) const;
  VertexId pxn_nic(VertexId gpu, VertexId dst_nic) const;

  const Cluster& c_;
  DownSet out_;  // devices and links out of service
  // Up and same-tier adjacency of fabric devices and NICs, as contiguous arrays indexed by vertex.
  std::vector<uint32_t> up_begin_, hz_begin_;
  std::vector<EdgeId> up_, hz_;
  std::vector<uint32_t> nic_leafset_;  // per vertex; UINT32_MAX for non-NICs
  // Per NIC vertex: its index among the cabled NICs numbered leaf set by leaf set, as a subnet
  // manager numbers the hosts under each leaf (static routing's destination index).
  std::vector<uint32_t> nic_lid_;
  std::vector<std::vector<VertexId>> leafsets_;

  std::vector<Twin> twin_;                    // per host
  mutable std::vector<VertexId> nic_of_gpu_;  // lazily filled, kNoVertex = not yet
  mutable std::unordered_map<uint64_t, LocalPath> gpu_nic_;
  // Per GPU, gpu_nic_'s path to its own NIC (nic_of_gpu_) once looked up: every flow leaving a
  // host asks for it, and the hash lookup was a cache miss each time.
  mutable std::vector<const LocalPath*> own_nic_path_;
  mutable std::unordered_map<VertexId, VertexId> pxn_relay_;  // NIC -> its relay GPU, kNoVertex: none
  mutable std::unordered_map<uint64_t, SwitchPaths> cache_;
  mutable std::unordered_map<uint64_t, Reach> reach_;  // by origin, leaf set and whether segments are named
  mutable std::vector<SwitchPaths*> segments_;         // cache_ entries by id (node addresses are stable)
  // Segments' parts by id, and by their hops (sorted by edge, then share) to find one already kept.
  struct HopsHash {
    size_t operator()(const std::vector<Hop>& hops) const;
  };
  mutable std::unordered_map<std::vector<Hop>, uint32_t, HopsHash> part_at_;
  mutable std::vector<const std::vector<Hop>*> parts_;  // part_at_'s keys by id (node addresses are stable)
  void split(SwitchPaths& out) const;
  mutable std::vector<std::pair<std::pair<int, int>, std::vector<Hop>>> split_;  // split's scratch
  std::vector<int16_t> tier_;  // per vertex: a switch's tier, 0 for the rest
  mutable std::unordered_map<VertexId, std::vector<VertexId>> up_cones_;
  mutable std::unordered_map<uint32_t, TargetCone> target_cones_;
  // Scratch per vertex for the path-set search, reset through the cones after each.
  mutable std::vector<int> dist_a_, dist_b_, rem_;
  // Zero but on the switches a walk is at (only switches are walked: pages over hosts' devices
  // are never touched).
  mutable ZeroedArray<double> flow_up_, flow_down_, count_up_, count_down_, lat_up_, lat_down_;
  mutable std::vector<VertexId> cone_a_;
  mutable std::vector<int> slot_;  // per vertex: its index in the target cone, or -1
  mutable std::vector<std::pair<EdgeId, bool>> next_;
  mutable std::vector<Hop> seg_hops_;
  mutable std::vector<Hop> hops_;                // fabric_route's scratch: routes keep only what they need
  mutable std::array<EdgeId, 2> switch_hops_{};  // fabric_parts' NVSwitch hops
  // Two GPUs of one host or NVLink domain on a common NVSwitch: the first's NVLink up to it and
  // the second's down from it, the best path there is (no search needed).
  std::optional<std::array<EdgeId, 2>> nvswitch_hops(VertexId a, VertexId b) const;
};

}  // namespace topoplan

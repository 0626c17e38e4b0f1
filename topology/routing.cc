#include "topology/routing.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <map>

namespace topoplan {
namespace {

constexpr int kInf = INT_MAX / 4;
constexpr uint32_t kNoLeafset = UINT32_MAX;

uint64_t pair_key(uint32_t a, uint32_t b) { return (static_cast<uint64_t>(a) << 32) | b; }

// On one host or in one NVLink domain: a local path, no fabric.
bool near(const Device& a, const Device& b) {
  return a.host == b.host || (a.scaleup_domain >= 0 && a.scaleup_domain == b.scaleup_domain);
}

int tier_of(const Device& d) { return is_fabric(d.kind) ? d.tier : 0; }

// splitmix64's finalizer: a switch's hash of a flow's identity, the same on every platform.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// What a local path has crossed so far; its class is derived from that, as NCCL's paths.cc does:
// one PCIe switch is PIX, several PXB, a CPU PHB, the socket link SYS.
struct LocalState {
  bool nvl = false, c2c = false, sys = false, nvb = false, pxn = false, phb = false, p2c = false;
  int pcie_switches = 0;

  // Crossing a link of this kind.
  void cross(LinkKind kind) {
    if (kind == LinkKind::NVL) nvl = true;
    if (kind == LinkKind::C2C) c2c = true;
    if (kind == LinkKind::SYS) sys = true;
  }

  PathClass path_class() const {
    PathClass c = PathClass::LOC;
    auto worst = [&c](PathClass x) { c = std::max(c, x); };
    if (nvl) worst(PathClass::NVL);
    if (nvb) worst(PathClass::NVB);
    if (c2c) worst(PathClass::C2C);
    if (pcie_switches == 1) worst(PathClass::PIX);
    if (pcie_switches > 1) worst(PathClass::PXB);
    // NCCL 2.23 names a GPU->CPU(C2C)->NIC path P2C and ranks it just after PXB; we fold it into PXB.
    if (p2c) worst(PathClass::PXB);
    if (pxn) worst(PathClass::PXN);
    if (phb) worst(PathClass::PHB);
    if (sys) worst(PathClass::SYS);
    return c;
  }
};

}  // namespace

Router::Router(const Cluster& cluster, const DownSet& down) : c_(cluster), out_(down) {
  const size_t n = c_.num_devices();
  up_begin_.assign(n + 1, 0);
  hz_begin_.assign(n + 1, 0);
  nic_leafset_.assign(n, kNoLeafset);
  tier_.resize(n);
  for (VertexId v = 0; v < n; ++v) tier_[v] = static_cast<int16_t>(tier_of(c_.device(v)));
  // Leaf sets numbered in order of their first NIC: most NICs have one leaf, found by the leaf,
  // where a tree of the sets was looked up (and a list allocated) for each of 100,000 NICs.
  std::map<std::vector<VertexId>, uint32_t> leafset_ids;  // sets of several leaves
  std::vector<uint32_t> leaf_alone(n, kNoLeafset);        // by the leaf: the set of it alone
  std::vector<VertexId> leaves;
  for (VertexId v = 0; v < n; ++v) {
    up_begin_[v] = static_cast<uint32_t>(up_.size());
    hz_begin_[v] = static_cast<uint32_t>(hz_.size());
    const Device& d = c_.device(v);
    if (!is_fabric(d.kind) && d.kind != DeviceKind::nic) continue;
    if (out_.device_down(v)) continue;  // no edges: a NIC without leaves is not cabled
    leaves.clear();
    for (EdgeId e : c_.out_edges(v)) {
      if (out_.edge_down(e) || out_.device_down(c_.target(e))) continue;
      const Device& t = c_.device(c_.target(e));
      if (!is_fabric(t.kind)) continue;
      if (tier_[c_.target(e)] > tier_[v]) {
        up_.push_back(e);
        leaves.push_back(c_.target(e));
      } else if (tier_[c_.target(e)] == tier_[v]) {
        hz_.push_back(e);
      }  // down edges: switch_paths finds those toward its targets from the targets' up edges
    }
    if (d.kind != DeviceKind::nic || leaves.empty()) continue;
    uint32_t* id = &leaf_alone[leaves.front()];
    if (leaves.size() > 1) {
      std::sort(leaves.begin(), leaves.end());
      id = &leafset_ids.try_emplace(leaves, kNoLeafset).first->second;
    }
    if (*id == kNoLeafset) {
      *id = static_cast<uint32_t>(leafsets_.size());
      leafsets_.push_back(leaves);
    }
    nic_leafset_[v] = *id;
  }
  up_begin_[n] = static_cast<uint32_t>(up_.size());
  hz_begin_[n] = static_cast<uint32_t>(hz_.size());
  std::vector<uint32_t> next_lid(leafsets_.size() + 1, 0);
  for (VertexId v = 0; v < n; ++v)
    if (nic_leafset_[v] != kNoLeafset) ++next_lid[nic_leafset_[v] + 1];
  for (size_t i = 1; i < next_lid.size(); ++i) next_lid[i] += next_lid[i - 1];
  nic_lid_.assign(n, 0);
  for (VertexId v = 0; v < n; ++v)
    if (nic_leafset_[v] != kNoLeafset) nic_lid_[v] = next_lid[nic_leafset_[v]]++;
  // Fill the begin offsets of vertices skipped above (they have empty ranges).
  for (size_t v = n; v-- > 0;) {
    const Device& d = c_.device(static_cast<VertexId>(v));
    if ((!is_fabric(d.kind) && d.kind != DeviceKind::nic) || out_.device_down(static_cast<VertexId>(v))) {
      up_begin_[v] = up_begin_[v + 1];
      hz_begin_[v] = hz_begin_[v + 1];
    }
  }
  nic_of_gpu_.assign(n, kNoVertex);
  own_nic_path_.assign(n, nullptr);
  dist_a_.assign(n, kInf);
  dist_b_.assign(n, kInf);
  rem_.assign(n, kInf);
  for (ZeroedArray<double>* a : {&flow_up_, &flow_down_, &count_up_, &count_down_, &lat_up_, &lat_down_})
    *a = ZeroedArray<double>(n);
  slot_.assign(n, -1);
  find_twins();
}

void Router::find_twins() {
  const size_t hosts = c_.hosts().size();
  twin_.assign(hosts, {});
  std::vector<VertexId> first(hosts, kNoVertex);
  std::vector<uint32_t> count(hosts, 0);
  for (VertexId v = 0; v < c_.num_devices(); ++v)
    if (const int h = c_.device(v).host; h >= 0) {
      if (first[static_cast<size_t>(h)] == kNoVertex) first[static_cast<size_t>(h)] = v;
      ++count[static_cast<size_t>(h)];
    }
  auto local = [](LinkKind k) { return k != LinkKind::NET && k != LinkKind::DCI; };
  // Its devices contiguous, none of them or their links down, and its local links (a search
  // follows no other) ending inside it: a local search from it sees nothing else.
  auto closed = [&](size_t h) {
    if (first[h] == kNoVertex) return false;
    for (VertexId v = first[h]; v - first[h] < count[h]; ++v) {
      if (c_.device(v).host != static_cast<int>(h) || out_.device_down(v)) return false;
      for (EdgeId e : c_.out_edges(v))
        if (out_.edge_down(e) || out_.edge_down(Cluster::reverse(e)) ||
            (local(c_.link(e).kind) && c_.target(e) - first[h] >= count[h]))
          return false;
    }
    return true;
  };
  // Host h as t shifted: the same devices in the same order, their links in the same order with
  // the same kinds and rates, each local one at the same offsets.
  auto copies = [&](size_t t, size_t h) -> std::optional<Twin> {
    if (count[t] != count[h]) return std::nullopt;
    Twin out{static_cast<int32_t>(t), first[h] - first[t], 0};
    bool offset_set = false;
    for (uint32_t i = 0; i < count[h]; ++i) {
      const VertexId a = first[t] + i, b = first[h] + i;
      const Device &x = c_.device(a), &y = c_.device(b);
      if (x.kind != y.kind || x.local_index != y.local_index) return std::nullopt;
      const std::span<const EdgeId> ea = c_.out_edges(a), eb = c_.out_edges(b);
      if (ea.size() != eb.size()) return std::nullopt;
      for (size_t j = 0; j < ea.size(); ++j) {
        const Link &l = c_.link(ea[j]), &m = c_.link(eb[j]);
        if (l.kind != m.kind || c_.device(c_.target(ea[j])).kind != c_.device(c_.target(eb[j])).kind)
          return std::nullopt;
        if (!local(l.kind)) continue;
        if (!offset_set) out.de = eb[j] - ea[j];
        offset_set = true;
        if (eb[j] - ea[j] != out.de || c_.target(eb[j]) - c_.target(ea[j]) != out.dv || l.bw_GBps != m.bw_GBps ||
            l.latency_us != m.latency_us)
          return std::nullopt;
      }
    }
    return out;
  };
  std::map<std::pair<std::string, uint32_t>, size_t> model;  // the first closed host of a node type and size
  for (size_t h = 0; h < hosts; ++h) {
    if (!closed(h)) continue;
    auto [it, fresh] = model.try_emplace({c_.hosts()[h].node_type, count[h]}, h);
    if (!fresh)
      if (std::optional<Twin> t = copies(it->second, h)) twin_[h] = *t;
  }
}

std::optional<std::pair<int, uint32_t>> Router::host_twin(int host) const {
  if (host < 0 || static_cast<size_t>(host) >= twin_.size() || twin_[static_cast<size_t>(host)].host < 0)
    return std::nullopt;
  const Twin& t = twin_[static_cast<size_t>(host)];
  return std::pair{t.host, t.dv};
}

const Router::Twin* Router::twin_of(VertexId a, VertexId b) const {
  const int h = c_.device(a).host;
  if (h < 0 || c_.device(b).host != h || twin_[static_cast<size_t>(h)].host < 0) return nullptr;
  return &twin_[static_cast<size_t>(h)];
}

Router::LocalPath Router::local_path(VertexId a, VertexId b) const {
  const Device& da = c_.device(a);
  const Device& db = c_.device(b);
  auto allowed = [&](VertexId id) {
    const Device& v = c_.device(id);
    if (v.kind == DeviceKind::nic || is_fabric(v.kind) || out_.device_down(id)) return false;
    if (v.host >= 0 && (v.host == da.host || v.host == db.host)) return true;
    return v.scaleup_domain >= 0 && (v.scaleup_domain == da.scaleup_domain || v.scaleup_domain == db.scaleup_domain);
  };
  LocalPath best;
  // To a NIC the search below stops at its first path of class PIX or better, and only a direct
  // link or one PCIe switch can give one (anything longer crosses a second switch, a CPU or a
  // peer GPU): those are looked at first, in the search's order, so most GPU-NIC pairs of a
  // large cluster need no search.
  if (db.kind == DeviceKind::nic) {
    auto take = [&](std::initializer_list<EdgeId> edges, LocalState st) {
      for (EdgeId e : edges) st.cross(c_.link(e).kind);
      if (st.path_class() > PathClass::PIX) return false;
      best.found = true;
      best.path_class = st.path_class();
      best.bw_GBps = 1e300;
      for (EdgeId e : edges) {
        best.bw_GBps = std::min(best.bw_GBps, c_.link(e).bw_GBps);
        best.latency_us += c_.link(e).latency_us;
      }
      best.edges.assign(edges.begin(), edges.end());
      return true;
    };
    auto usable = [&](EdgeId e) {
      const LinkKind k = c_.link(e).kind;
      return !out_.edge_down(e) && k != LinkKind::NET && k != LinkKind::DCI;
    };
    // The search could meet the NIC through an NVSwitch only if one links to more than GPUs:
    // then it is left to the search.
    auto odd_nvswitch = [&](VertexId w) {
      if (c_.device(w).kind != DeviceKind::nvswitch || !allowed(w)) return false;
      for (EdgeId e : c_.out_edges(w))
        if (c_.device(c_.target(e)).kind != DeviceKind::gpu) return true;
      return false;
    };
    bool odd = false;
    for (EdgeId e : c_.out_edges(a)) {
      if (!usable(e)) continue;
      const VertexId w = c_.target(e);
      if (w == b) {
        if (take({e}, {})) return best;
        continue;
      }
      if ((odd = odd_nvswitch(w))) break;
      if (!allowed(w) || c_.device(w).kind != DeviceKind::pcie_switch) continue;
      for (EdgeId f : c_.out_edges(w)) {
        if (!usable(f) || c_.target(f) == a) continue;
        if (c_.target(f) == b) {
          LocalState st;
          st.pcie_switches = 1;
          if (take({e, f}, st)) return best;
        } else if ((odd = odd_nvswitch(c_.target(f)))) {
          break;
        }
      }
      if (odd) break;
    }
    best = {};
  }
  std::vector<EdgeId> stack;
  std::vector<VertexId> on_path{a};
  // Depth-first over the few devices of one host; the best path by (class, bandwidth, hops) wins.
  auto better = [&](PathClass cls, double bw, size_t hops) {
    if (!best.found) return true;
    if (cls != best.path_class) return cls < best.path_class;
    if (bw != best.bw_GBps) return bw > best.bw_GBps;
    return hops < best.edges.size();
  };
  bool done = false;
  auto dfs = [&](auto&& self, VertexId v, LocalState st, double bw, double lat) -> void {
    if (stack.size() > 8) return;
    for (EdgeId e : c_.out_edges(v)) {
      if (done) return;
      VertexId w = c_.target(e);
      if (std::find(on_path.begin(), on_path.end(), w) != on_path.end() || out_.edge_down(e)) continue;
      const Link& l = c_.link(e);
      LocalState next = st;
      next.cross(l.kind);
      if (l.kind == LinkKind::NET || l.kind == LinkKind::DCI) continue;
      double nbw = std::min(bw, l.bw_GBps);
      double nlat = lat + l.latency_us;
      if (w == b) {
        if (db.kind == DeviceKind::nic && next.nvb) {
          next.nvb = false;  // NVLink to a peer GPU, then its NIC: NCCL's PXN
          next.pxn = true;
        }
        PathClass cls = next.path_class();
        // Nothing beats one PCIe switch between a GPU and a NIC: stop searching.
        if (db.kind == DeviceKind::nic && cls <= PathClass::PIX) done = true;
        if (better(cls, nbw, stack.size() + 1)) {
          best.found = true;
          best.path_class = cls;
          best.bw_GBps = nbw;
          best.latency_us = nlat;
          best.edges = stack;
          best.edges.push_back(e);
        }
        continue;
      }
      const Device& dw = c_.device(w);
      if (!allowed(w)) continue;
      switch (dw.kind) {
        case DeviceKind::gpu:
          // Through a peer GPU only over NVLink: NVB to another GPU, PXN out to a NIC.
          if (l.kind != LinkKind::NVL || next.nvb || next.pxn) continue;
          next.nvb = true;
          break;
        case DeviceKind::pcie_switch:
          ++next.pcie_switches;
          break;
        case DeviceKind::cpu:
          (l.kind == LinkKind::C2C ? next.p2c : next.phb) = true;
          break;
        default:
          break;
      }
      if (best.found && next.path_class() > best.path_class) continue;
      stack.push_back(e);
      on_path.push_back(w);
      self(self, w, next, nbw, nlat);
      stack.pop_back();
      on_path.pop_back();
    }
  };
  dfs(dfs, a, LocalState{}, 1e300, 0);
  return best;
}

const Router::LocalPath& Router::gpu_nic_path(VertexId gpu, VertexId nic) const {
  const bool own = nic != kNoVertex && nic_of_gpu_[gpu] == nic;
  if (own && own_nic_path_[gpu]) return *own_nic_path_[gpu];
  auto [it, inserted] = gpu_nic_.try_emplace(pair_key(gpu, nic));
  if (own) own_nic_path_[gpu] = &it->second;
  if (!inserted) return it->second;
  LocalPath& slot = it->second;  // stays put while the twin's path is added to the map
  if (const Twin* t = twin_of(gpu, nic)) {
    slot = gpu_nic_path(gpu - t->dv, nic - t->dv);
    for (EdgeId& e : slot.edges) e += t->de;
    return slot;
  }
  LocalPath p = local_path(gpu, nic);
  // A PXN path goes through the NIC's own GPU, not whichever peer the search met first.
  if (p.found && p.path_class == PathClass::PXN)
    if (VertexId relay = pxn_relay(nic); relay != kNoVertex && relay != gpu) {
      LocalPath hop = local_path(gpu, relay), out = local_path(relay, nic);
      if (hop.found && hop.path_class == PathClass::NVL && out.found && out.path_class < PathClass::PXN) {
        p.edges = std::move(hop.edges);
        p.edges.insert(p.edges.end(), out.edges.begin(), out.edges.end());
        p.bw_GBps = std::min(hop.bw_GBps, out.bw_GBps);
        p.latency_us = hop.latency_us + out.latency_us;
      }
    }
  return slot = std::move(p);
}

// NCCL's relay for a NIC (paths.cc adds the PXN step through ncclTopoGetLocalGpu, topo.cc): of
// the GPUs nearest the NIC, the one whose channel-0 NIC it is by ncclTopoGetLocalNet (the GPU's
// device index, bit-mirrored when its nearest NICs are a power of two, modulo their count). On a
// DGX A100 both GPUs of a PCIe switch are PIX to both of its NICs and NIC 1 is GPU 1's: the first
// GPU a search meets would carry two rails. The paths compared here are the searched ones.
VertexId Router::pxn_relay(VertexId nic) const {
  auto [it, inserted] = pxn_relay_.try_emplace(nic, kNoVertex);
  if (!inserted) return it->second;
  if (const Twin* t = twin_of(nic, nic)) {
    VertexId& slot = it->second;  // stays put while the twin's relay is added to the map
    const VertexId relay = pxn_relay(nic - t->dv);
    return slot = relay == kNoVertex ? kNoVertex : relay + t->dv;
  }
  const Host& host = c_.hosts()[c_.device(nic).host];
  // Those of `to` at the least class from `from`, if at most PXB (NCCL relays only through a
  // GPU that near the NIC).
  auto nearest = [&](VertexId from, const std::vector<VertexId>& to) {
    std::vector<VertexId> out;
    PathClass best = PathClass::PXB;
    for (VertexId v : to) {
      LocalPath p = local_path(from, v);
      if (!p.found || p.path_class > best) continue;
      if (p.path_class < best) out.clear();
      best = p.path_class;
      out.push_back(v);
    }
    return out;
  };
  for (VertexId gpu : nearest(nic, host.gpus)) {
    const std::vector<VertexId> nets = nearest(gpu, host.nics);
    const auto count = static_cast<unsigned>(nets.size());
    auto index = static_cast<unsigned>(std::max<int>(c_.device(gpu).local_index, 0));
    if (std::has_single_bit(count)) {
      unsigned mirrored = 0;
      for (unsigned b = 1, mb = count >> 1; b < count; b <<= 1, mb >>= 1)
        if (index & b) mirrored |= mb;
      index = mirrored;
    }
    if (!nets.empty() && nets[index % count] == nic) return it->second = gpu;
  }
  return kNoVertex;
}

VertexId Router::nic_for(VertexId gpu) const {
  if (nic_of_gpu_[gpu] != kNoVertex) return nic_of_gpu_[gpu];
  const Device& g = c_.device(gpu);
  if (g.kind == DeviceKind::nic) return gpu;
  VertexId best = kNoVertex;
  const LocalPath* best_path = nullptr;
  // The GPU's own NIC one PCIe switch away is the answer (no class is better), as on every DGX.
  for (VertexId nic : c_.hosts()[g.host].nics)
    if (c_.device(nic).local_index == g.local_index && nic_leafset_[nic] != kNoLeafset &&
        gpu_nic_path(gpu, nic).found && gpu_nic_path(gpu, nic).path_class <= PathClass::PIX)
      return nic_of_gpu_[gpu] = nic;
  for (VertexId nic : c_.hosts()[g.host].nics) {
    if (nic_leafset_[nic] == kNoLeafset) continue;  // not cabled to the fabric
    const LocalPath& p = gpu_nic_path(gpu, nic);
    if (!p.found || p.path_class >= PathClass::PXN) continue;  // PXN is a policy, not a default
    bool take = !best_path || p.path_class < best_path->path_class ||
                (p.path_class == best_path->path_class &&
                 (p.bw_GBps > best_path->bw_GBps ||
                  (p.bw_GBps == best_path->bw_GBps && c_.device(nic).local_index == g.local_index &&
                   c_.device(best).local_index != g.local_index)));
    if (take) {
      best = nic;
      best_path = &p;
    }
  }
  if (best == kNoVertex)  // only NICs behind a peer GPU or none: take any cabled one
    for (VertexId nic : c_.hosts()[g.host].nics)
      if (nic_leafset_[nic] != kNoLeafset) {
        best = nic;
        break;
      }
  nic_of_gpu_[gpu] = best;
  return best;
}

std::optional<PathClass> Router::gpu_nic_class(VertexId gpu, VertexId nic) const {
  const LocalPath& p = gpu_nic_path(gpu, nic);
  if (!p.found) return std::nullopt;
  return p.path_class;
}

VertexId Router::pxn_nic(VertexId gpu, VertexId dst_nic) const {
  VertexId own = nic_for(gpu);
  // Without a NIC of its own (an explicit graph may leave a host uncabled) there is no route to
  // improve; the caller reports it.
  if (own == kNoVertex || dst_nic == kNoVertex) return own;
  int rail = c_.device(dst_nic).rail;
  if (rail < 0 || c_.device(own).rail == rail) return own;
  for (VertexId nic : c_.hosts()[c_.device(gpu).host].nics) {
    if (c_.device(nic).rail != rail || nic_leafset_[nic] == kNoLeafset) continue;
    const LocalPath& p = gpu_nic_path(gpu, nic);
    if (p.found && p.path_class <= PathClass::PXN) return nic;
  }
  return own;
}

const std::vector<VertexId>& Router::up_cone(VertexId from) const {
  auto [it, fresh] = up_cones_.try_emplace(from);
  std::vector<VertexId>& out = it->second;
  if (!fresh) return out;
  // Breadth-first up from the switch, dist_a_ marking those met; then by tier, highest first,
  // breadth-first order kept within a tier.
  std::vector<VertexId>& order = cone_a_;
  order.assign(1, from);
  dist_a_[from] = 0;
  int top = tier_[from];
  for (size_t i = 0; i < order.size(); ++i)
    for (uint32_t k = up_begin_[order[i]]; k < up_begin_[order[i] + 1]; ++k)
      if (const VertexId w = c_.target(up_[k]); dist_a_[w] == kInf) {
        dist_a_[w] = 0;
        order.push_back(w);
        top = std::max<int>(top, tier_[w]);
      }
  out.reserve(order.size());
  for (int t = top; t >= 0; --t)
    for (VertexId v : order)
      if (tier_[v] == t) out.push_back(v);
  for (VertexId v : order) dist_a_[v] = kInf;
  return out;
}

const Router::TargetCone& Router::target_cone(uint32_t leafset) const {
  auto [it, fresh] = target_cones_.try_emplace(leafset);
  TargetCone& out = it->second;
  if (!fresh) return out;
  // Shortest up-only distance from the leaf set's leaves, breadth-first. Per switch, also its
  // down edges one step nearer the targets: a core switch has hundreds of down edges and only a
  // few lead there, so the walks look at those only.
  for (VertexId t : leafsets_[leafset]) {
    dist_b_[t] = 0;
    out.order.push_back(t);
    out.dist.push_back(0);
  }
  std::vector<std::pair<uint32_t, EdgeId>> toward;  // cone index, down edge
  for (size_t i = 0; i < out.order.size(); ++i) {
    const VertexId v = out.order[i];
    for (uint32_t k = up_begin_[v]; k < up_begin_[v + 1]; ++k) {
      const VertexId w = c_.target(up_[k]);
      if (dist_b_[w] == kInf) {
        dist_b_[w] = dist_b_[v] + 1;
        slot_[w] = static_cast<int>(out.order.size());
        out.order.push_back(w);
        out.dist.push_back(dist_b_[w]);
      }
      if (dist_b_[w] == dist_b_[v] + 1 && !out_.edge_down(Cluster::reverse(up_[k])))
        toward.push_back({static_cast<uint32_t>(slot_[w]), Cluster::reverse(up_[k])});
    }
  }
  // In edge order per switch, as the adjacency lists are, so hops come out in a stable order.
  std::sort(toward.begin(), toward.end());
  out.toward_begin.assign(out.order.size() + 1, 0);
  for (const auto& [i, e] : toward) ++out.toward_begin[i + 1];
  for (size_t i = 1; i < out.toward_begin.size(); ++i) out.toward_begin[i] += out.toward_begin[i - 1];
  out.toward.reserve(toward.size());
  for (const auto& [i, e] : toward) out.toward.push_back(e);
  for (VertexId v : out.order) {
    dist_b_[v] = kInf;
    slot_[v] = -1;
  }
  return out;
}

const Router::SwitchPaths& Router::switch_paths(VertexId from, uint32_t leafset) const {
  auto [it, inserted] = cache_.try_emplace(pair_key(from, leafset));
  if (!inserted) return it->second;
  SwitchPaths& out = it->second;
  out.id = static_cast<uint32_t>(segments_.size());
  out.order = pair_key(from, leafset);
  segments_.push_back(&out);
  const std::vector<VertexId>& targets = leafsets_[leafset];
  const std::vector<VertexId>& by_tier = up_cone(from);
  const TargetCone& cone_b = target_cone(leafset);
  for (uint32_t i = 0; i < cone_b.order.size(); ++i) {
    dist_b_[cone_b.order[i]] = cone_b.dist[i];
    slot_[cone_b.order[i]] = static_cast<int>(i);
  }
  auto toward = [&](VertexId s) -> std::span<const EdgeId> {
    if (slot_[s] < 0) return {};
    const auto i = static_cast<size_t>(slot_[s]);
    return {cone_b.toward.data() + cone_b.toward_begin[i], cone_b.toward.data() + cone_b.toward_begin[i + 1]};
  };

  // Remaining valley-free distance from each up-cone switch: go down here, cross once, or climb.
  for (VertexId s : by_tier) {
    int r = dist_b_[s];
    for (uint32_t k = hz_begin_[s]; k < hz_begin_[s + 1]; ++k)
      if (int d = dist_b_[c_.target(hz_[k])]; d != kInf) r = std::min(r, d + 1);
    for (uint32_t k = up_begin_[s]; k < up_begin_[s + 1]; ++k)
      if (int d = rem_[c_.target(up_[k])]; d != kInf) r = std::min(r, d + 1);
    rem_[s] = r;
  }
  // Every switch written below is in one of the two cones.
  auto reset = [&] {
    for (const std::vector<VertexId>* cone : {&by_tier, &cone_b.order})
      for (VertexId v : *cone) {
        dist_b_[v] = rem_[v] = kInf;
        slot_[v] = -1;
        flow_up_[v] = flow_down_[v] = count_up_[v] = count_down_[v] = lat_up_[v] = lat_down_[v] = 0;
      }
  };
  if (rem_[from] == kInf) {
    reset();
    return out;
  }
  out.reachable = true;
  out.length = rem_[from];
  out.exit_share.assign(targets.size(), 0);
  auto exit_at = [&](VertexId v, double flow, double count, double lat) {
    size_t j = static_cast<size_t>(std::lower_bound(targets.begin(), targets.end(), v) - targets.begin());
    out.exit_share[j] += flow;
    out.paths += count;
    out.latency_us = std::max(out.latency_us, lat);
  };

  // Per-hop even split over every next hop on a shortest path, each switch's next hops together
  // in `hops`; hash and static routing walk them (fans), adaptive routing needs only the shares.
  const bool walked = c_.routing.mode != Routing::adaptive;
  flow_up_[from] = 1;
  count_up_[from] = 1;
  std::vector<std::pair<EdgeId, bool>>& next = next_;  // edge, lands in the down phase
  std::vector<Hop>& hops = seg_hops_;
  hops.clear();
  for (auto tier_it = by_tier.rbegin(); tier_it != by_tier.rend(); ++tier_it) {
    VertexId s = *tier_it;
    if (flow_up_[s] == 0) continue;
    if (dist_b_[s] == 0 && rem_[s] == 0) {
      exit_at(s, flow_up_[s], count_up_[s], lat_up_[s]);
      continue;
    }
    next.clear();
    if (dist_b_[s] != kInf && dist_b_[s] == rem_[s])
      for (EdgeId e : toward(s)) next.push_back({e, true});
    for (uint32_t k = hz_begin_[s]; k < hz_begin_[s + 1]; ++k)
      if (int d = dist_b_[c_.target(hz_[k])]; d != kInf && d + 1 == rem_[s]) next.push_back({hz_[k], true});
    for (uint32_t k = up_begin_[s]; k < up_begin_[s + 1]; ++k)
      if (int d = rem_[c_.target(up_[k])]; d != kInf && d + 1 == rem_[s]) next.push_back({up_[k], false});
    if (walked)
      out.fans.push_back(
          {s << 1, static_cast<uint32_t>(hops.size()), static_cast<uint32_t>(hops.size() + next.size())});
    double share = flow_up_[s] / static_cast<double>(next.size());
    for (auto [e, down] : next) {
      VertexId w = c_.target(e);
      hops.push_back({e, share});
      double lat = lat_up_[s] + c_.link(e).latency_us;
      (down ? flow_down_ : flow_up_)[w] += share;
      (down ? count_down_ : count_up_)[w] += count_up_[s];
      double& l = (down ? lat_down_ : lat_up_)[w];
      l = std::max(l, lat);
    }
  }
  for (auto cone_it = cone_b.order.rbegin(); cone_it != cone_b.order.rend(); ++cone_it) {  // farthest first
    VertexId s = *cone_it;
    if (flow_down_[s] == 0) continue;
    if (dist_b_[s] == 0) {
      exit_at(s, flow_down_[s], count_down_[s], lat_down_[s]);
      continue;
    }
    next.clear();
    for (EdgeId e : toward(s)) next.push_back({e, true});
    if (walked)
      out.fans.push_back(
          {s << 1 | 1, static_cast<uint32_t>(hops.size()), static_cast<uint32_t>(hops.size() + next.size())});
    double share = flow_down_[s] / static_cast<double>(next.size());
    for (auto [e, down] : next) {
      VertexId w = c_.target(e);
      hops.push_back({e, share});
      flow_down_[w] += share;
      count_down_[w] += count_down_[s];
      lat_down_[w] = std::max(lat_down_[w], lat_down_[s] + c_.link(e).latency_us);
    }
  }
  reset();
  out.hops.assign(hops.begin(), hops.end());  // one allocation of the final size
  std::sort(out.fans.begin(), out.fans.end(), [](const Fan& x, const Fan& y) { return x.key < y.key; });
  for (const Hop& h : out.hops)
    if (const Link& l = c_.link(h.edge); l.kind == LinkKind::DCI) {
      out.crosses_dci = true;
      out.dci_latency_us += h.share * l.latency_us;
    }
  return out;
}

size_t Router::HopsHash::operator()(const std::vector<Hop>& hops) const {
  uint64_t h = hops.size();
  for (const Hop& x : hops) h = mix(h ^ (uint64_t{x.edge} << 32) ^ std::bit_cast<uint64_t>(x.share));
  return static_cast<size_t>(h);
}

void Router::split(SwitchPaths& out) const {
  // The hops by the tiers each joins, in tier order; a switch's paths join a few. The groups'
  // lists are scratch kept between calls, and copied only into a part not kept before.
  size_t groups = 0;
  for (const Hop& h : out.hops) {
    const std::pair<int, int> tiers{tier_[c_.source(h.edge)], tier_[c_.target(h.edge)]};
    size_t g = 0;
    while (g < groups && split_[g].first != tiers) ++g;
    if (g == groups) {
      if (split_.size() == groups) split_.emplace_back();
      split_[g].first = tiers;
      split_[g].second.clear();
      ++groups;
    }
    split_[g].second.push_back(h);
  }
  std::sort(split_.begin(), split_.begin() + static_cast<std::ptrdiff_t>(groups),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  for (size_t g = 0; g < groups; ++g) {
    std::vector<Hop>& hops = split_[g].second;
    std::sort(hops.begin(), hops.end(),
              [](const Hop& x, const Hop& y) { return x.edge != y.edge ? x.edge < y.edge : x.share < y.share; });
    auto at = part_at_.find(hops);
    if (at == part_at_.end()) {
      at = part_at_.emplace(hops, static_cast<uint32_t>(parts_.size())).first;
      parts_.push_back(&at->first);
    }
    out.parts.push_back(at->second);
  }
}

// hash: each switch hashes the connection's identity with a seed of its own, as RoCE switches hash
// the 5-tuple whose UDP source port carries the queue pair's entropy (RoCEv2 source-port entropy,
// linux-rdma "RoCE v2.0 UDP Source Port Entropy"). static: D-mod-k over the destination's index,
// (d / n^(tier - 1)) mod n, so a switch sends everything for one destination out of one port, as
// an InfiniBand linear forwarding table does (OpenSM doc/current-routing.txt: ftree, updn).
size_t Router::next_hop(VertexId at, size_t n, uint64_t flow_hash, VertexId nic_b) const {
  if (n <= 1) return 0;
  if (c_.routing.mode == Routing::static_) {
    uint64_t d = nic_lid_[nic_b];
    for (int t = 1; t < tier_[at] && d > 0; ++t) d /= n;
    return static_cast<size_t>(d % n);
  }
  return static_cast<size_t>(mix(flow_hash ^ at) % n);
}

std::string routing_text(const FabricRouting& routing) {
  static constexpr const char* kMeaning[kRoutings] = {
      "InfiniBand adaptive routing: each flow's bytes split evenly over the equal-cost paths",
      "RoCE ECMP: each NCCL connection on one equal-cost path, by a hash of its 5-tuple",
      "InfiniBand forwarding tables: every flow to one destination on one path from each switch"};
  return std::string(to_string(routing.mode)) + " (" + kMeaning[static_cast<size_t>(routing.mode)] + "; " +
         (routing.source.empty() ? "the default: the cluster names no routing" : routing.source) + ")";
}

Segment Router::segment(uint32_t id) const {
  const SwitchPaths& sp = *segments_[id];
  return {&sp.hops, sp.dci_latency_us, sp.crosses_dci, sp.order};
}

const std::vector<uint32_t>& Router::segment_parts(uint32_t id) const {
  SwitchPaths& sp = *segments_[id];
  if (!sp.split) split(sp);
  sp.split = true;
  return sp.parts;
}

void Router::Ceiling::take(const Cluster& c, EdgeId e, double share) {
  const Link& l = c.link(e);
  if (l.kind == LinkKind::DCI) dci = true;
  if (double cap = l.bw_GBps / share; cap < bw_GBps) {
    bw_GBps = cap;
    edge = e;
  }
}

void Router::Ceiling::take(const Ceiling& later) {
  dci = dci || later.dci;
  if (later.bw_GBps < bw_GBps) {
    bw_GBps = later.bw_GBps;
    edge = later.edge;
  }
}

std::vector<uint32_t> Router::first_hops(VertexId nic, uint32_t leafset) const {
  int best = kInf;
  for (uint32_t k = up_begin_[nic]; k < up_begin_[nic + 1]; ++k) {
    const SwitchPaths& sp = switch_paths(c_.target(up_[k]), leafset);
    if (sp.reachable) best = std::min(best, sp.length);
  }
  std::vector<uint32_t> first;
  for (uint32_t k = up_begin_[nic]; k < up_begin_[nic + 1] && best != kInf; ++k) {
    const SwitchPaths& sp = switch_paths(c_.target(up_[k]), leafset);
    if (sp.reachable && sp.length == best) first.push_back(k);
  }
  return first;
}

Result<Router::Legs> Router::fabric_ends(VertexId src, VertexId nic_a, VertexId nic_b, VertexId dst) const {
  Legs out;
  // An explicit graph may cable a host's NIC where its GPU has no path to it: say so rather than
  // return a route that starts at the NIC.
  for (auto [gpu, nic, path] : {std::tuple{src, nic_a, &out.src}, std::tuple{dst, nic_b, &out.dst}}) {
    if (gpu == nic) continue;
    *path = &gpu_nic_path(gpu, nic);
    if (!(*path)->found)
      return Error{"no route from '" + c_.device(src).name + "' to '" + c_.device(dst).name + "': '" +
                   c_.device(gpu).name + "' has no path inside its host to '" + c_.device(nic).name + "'"};
  }
  if (nic_leafset_[nic_a] == kNoLeafset || nic_leafset_[nic_b] == kNoLeafset)
    return Error{"no route from '" + c_.device(src).name + "' to '" + c_.device(dst).name +
                 "': a NIC on the way is not cabled to the fabric"};
  return out;
}

bool Router::one_uplink(VertexId nic) const { return up_begin_[nic + 1] - up_begin_[nic] == 1; }

Error Router::no_updown(VertexId nic_a, VertexId nic_b) const {
  return Error{"no up/down route from '" + c_.device(nic_a).name + "' to '" + c_.device(nic_b).name +
               "': check the switch tiers"};
}

const Router::Reach& Router::reach(VertexId nic, uint32_t leafset, bool segments) const {
  // A NIC cabled to one leaf reaches the set as that leaf does; its uplink is added per route.
  const bool from_leaf = one_uplink(nic);
  const VertexId origin = from_leaf ? c_.target(up_[up_begin_[nic]]) : nic;
  auto [it, inserted] = reach_.try_emplace(pair_key(origin, leafset << 1 | (segments ? 1 : 0)));
  Reach& out = it->second;
  if (!inserted) return out;
  const std::vector<uint32_t> first = first_hops(nic, leafset);
  if (first.empty()) return out;
  out.reachable = true;
  out.exit.assign(leafsets_[leafset].size(), 0);
  // One first hop (a NIC cabled to one leaf): its switch paths can stay a named segment.
  const bool split = segments && first.size() == 1;
  for (uint32_t k : first) {
    const double share = 1.0 / static_cast<double>(first.size());
    const SwitchPaths& sp = switch_paths(c_.target(up_[k]), leafset);
    if (!from_leaf) out.hops.push_back({up_[k], share});
    if (split) {
      out.segment = sp.id;
      out.segment_share = share;
      for (const Hop& h : sp.hops) out.segment_ceiling.take(c_, h.edge, h.share * share);
    } else {
      for (const Hop& h : sp.hops) out.hops.push_back({h.edge, h.share * share});
    }
    for (size_t j = 0; j < out.exit.size(); ++j) out.exit[j] += sp.exit_share[j] * share;
    out.paths += sp.paths;
    out.latency_us = from_leaf ? sp.latency_us : std::max(out.latency_us, c_.link(up_[k]).latency_us + sp.latency_us);
  }
  // Several first hops may reach the same switches: merge repeated edges, keeping path order.
  if (first.size() > 1) {
    std::unordered_map<EdgeId, size_t> at;
    size_t w = 0;
    for (size_t i = 0; i < out.hops.size(); ++i) {
      auto [slot, fresh] = at.try_emplace(out.hops[i].edge, w);
      if (fresh)
        out.hops[w++] = out.hops[i];
      else
        out.hops[slot->second].share += out.hops[i].share;
    }
    out.hops.resize(w);
  }
  return out;
}

// Leaves hops_ holding the fabric hops, NIC to NIC, less the named segment.
Result<Router::Legs> Router::legs(VertexId src, VertexId nic_a, VertexId nic_b, VertexId dst, bool segments) const {
  Result<Legs> ends = fabric_ends(src, nic_a, nic_b, dst);
  if (!ends) return ends;
  Legs out = *ends;
  const uint32_t target = nic_leafset_[nic_b];
  const Reach& reach = this->reach(nic_a, target, segments);
  if (!reach.reachable) return no_updown(nic_a, nic_b);
  out.reach = &reach;
  hops_.clear();
  out.fabric_latency_us = reach.latency_us;
  if (one_uplink(nic_a)) {
    const EdgeId up = up_[up_begin_[nic_a]];
    hops_.push_back({up, 1.0});
    out.fabric_latency_us = std::max(0.0, c_.link(up).latency_us + reach.latency_us);
  }
  hops_.insert(hops_.end(), reach.hops.begin(), reach.hops.end());
  const std::vector<VertexId>& leaves = leafsets_[target];
  for (size_t j = 0; j < leaves.size(); ++j) {
    if (reach.exit[j] == 0) continue;
    for (uint32_t k = up_begin_[nic_b]; k < up_begin_[nic_b + 1]; ++k)
      if (c_.target(up_[k]) == leaves[j]) {
        hops_.push_back({Cluster::reverse(up_[k]), reach.exit[j]});
        out.last_hop_latency_us = std::max(out.last_hop_latency_us, c_.link(up_[k]).latency_us);
      }
  }
  return out;
}

Result<Route> Router::fabric_route(VertexId src, VertexId nic_a, VertexId nic_b, VertexId dst,
                                   const RouteOptions& options) const {
  Route r;
  r.src = src;
  r.dst = dst;
  r.src_nic = nic_a;
  r.dst_nic = nic_b;
  r.path_class = PathClass::NET;
  Ceiling ceiling;
  double local_lat = 0;
  auto add_local = [&](const LocalPath* path, bool reversed) {
    if (!path) return;
    const std::vector<EdgeId>& edges = path->edges;
    for (size_t i = 0; i < edges.size(); ++i) {
      EdgeId e = reversed ? Cluster::reverse(edges[edges.size() - 1 - i]) : edges[i];
      r.hops.push_back({e, 1.0});
      ceiling.take(c_, e, 1.0);
      local_lat += c_.link(e).latency_us;
    }
  };
  if (!options.flow || c_.routing.mode == Routing::adaptive) {
    Result<Legs> legs = this->legs(src, nic_a, nic_b, dst, options.segments);
    if (!legs) return Error{legs.error()};
    r.hops.reserve((legs->src ? legs->src->edges.size() : 0) + hops_.size() +
                   (legs->dst ? legs->dst->edges.size() : 0));
    add_local(legs->src, false);
    for (const Hop& h : hops_) {
      r.hops.push_back(h);
      ceiling.take(c_, h.edge, h.share);
    }
    add_local(legs->dst, true);
    const Reach& reach = *legs->reach;
    r.paths = reach.paths;
    r.segment = reach.segment;
    r.segment_share = reach.segment_share;
    if (reach.segment != Route::kNoSegment) ceiling.take(reach.segment_ceiling);
    r.latency_us = local_lat + legs->fabric_latency_us + legs->last_hop_latency_us;
    if (ceiling.dci) r.path_class = PathClass::DCI;
    r.bw_GBps = ceiling.bw_GBps;
    r.bottleneck = ceiling.edge;
    return r;
  }

  // One connection: at the NIC and at every switch with several equal-cost next hops it takes
  // one, so its bytes stay on a single path.
  Result<Legs> ends = fabric_ends(src, nic_a, nic_b, dst);
  if (!ends) return Error{ends.error()};
  const uint32_t target = nic_leafset_[nic_b];
  const std::vector<uint32_t> first = first_hops(nic_a, target);
  if (first.empty()) return no_updown(nic_a, nic_b);
  add_local(ends->src, false);
  const uint64_t flow_hash = mix(mix(mix(nic_a) ^ nic_b) ^ *options.flow);
  const uint32_t k = first[next_hop(nic_a, first.size(), flow_hash, nic_b)];
  std::vector<EdgeId> fabric{up_[k]};
  double fabric_lat = c_.link(up_[k]).latency_us, last_hop_lat = 0;
  VertexId at = c_.target(up_[k]);
  const SwitchPaths& sp = switch_paths(at, target);
  r.paths = sp.paths;
  for (bool down = false;;) {
    const uint32_t key = at << 1 | (down ? 1 : 0);
    auto fan =
        std::lower_bound(sp.fans.begin(), sp.fans.end(), key, [](const Fan& f, uint32_t x) { return f.key < x; });
    if (fan == sp.fans.end() || fan->key != key) break;  // a leaf of the target set: the way out
    const Hop& h = sp.hops[fan->begin + next_hop(at, fan->end - fan->begin, flow_hash, nic_b)];
    fabric.push_back(h.edge);
    fabric_lat += c_.link(h.edge).latency_us;
    const VertexId next = c_.target(h.edge);
    down = down || tier_[next] <= tier_[at];
    at = next;
  }
  for (uint32_t j = up_begin_[nic_b]; j < up_begin_[nic_b + 1]; ++j)
    if (c_.target(up_[j]) == at) {
      fabric.push_back(Cluster::reverse(up_[j]));
      last_hop_lat = c_.link(up_[j]).latency_us;
      break;
    }
  for (EdgeId e : fabric) {
    r.hops.push_back({e, 1.0});
    ceiling.take(c_, e, 1.0);
  }
  add_local(ends->dst, true);
  r.latency_us = local_lat + fabric_lat + last_hop_lat;
  if (ceiling.dci) r.path_class = PathClass::DCI;
  r.bw_GBps = ceiling.bw_GBps;
  r.bottleneck = ceiling.edge;
  return r;
}

Result<Route> Router::route(VertexId a, VertexId b, RouteOptions options) const {
  const Device& da = c_.device(a);
  const Device& db = c_.device(b);
  for (const Device* d : {&da, &db})
    if (d->kind != DeviceKind::gpu && d->kind != DeviceKind::nic)
      return Error{"'" + d->name + "' is a " + std::string(to_string(d->kind)) + "; routes join GPUs or NICs"};
  Route r;
  r.src = a;
  r.dst = b;
  if (a == b) {
    r.bw_GBps = 1e300;
    return r;
  }
  const bool local = near(da, db);
  if (local && da.kind == DeviceKind::gpu && db.kind == DeviceKind::gpu)
    if (const std::optional<std::array<EdgeId, 2>> nvs = nvswitch_hops(a, b)) {
      const auto [up, down] = *nvs;
      r.path_class = PathClass::NVL;
      r.latency_us = c_.link(up).latency_us + c_.link(down).latency_us;
      r.bottleneck = c_.link(up).bw_GBps <= c_.link(down).bw_GBps ? up : down;
      r.bw_GBps = c_.link(r.bottleneck).bw_GBps;
      r.hops = {{up, 1.0}, {down, 1.0}};
      return r;
    }
  if (local) {
    // GPU-NIC paths repeat for every flow leaving a host: take them from the cache.
    const bool gpu_nic = da.kind == DeviceKind::gpu && db.kind == DeviceKind::nic;
    const bool nic_gpu = da.kind == DeviceKind::nic && db.kind == DeviceKind::gpu;
    LocalPath p = gpu_nic ? gpu_nic_path(a, b) : nic_gpu ? gpu_nic_path(b, a) : local_path(a, b);
    if (nic_gpu) {
      std::reverse(p.edges.begin(), p.edges.end());
      for (EdgeId& e : p.edges) e = Cluster::reverse(e);
    }
    if (p.found) {
      r.path_class = p.path_class;
      r.latency_us = p.latency_us;
      r.bw_GBps = 1e300;
      for (EdgeId e : p.edges) {
        r.hops.push_back({e, 1.0});
        if (c_.link(e).bw_GBps < r.bw_GBps) {
          r.bw_GBps = c_.link(e).bw_GBps;
          r.bottleneck = e;
        }
      }
      return r;
    }
  }
  Result<std::pair<VertexId, VertexId>> nics = this->nics(a, b, options.nic);
  if (!nics) return Error{nics.error()};
  return fabric_route(a, nics->first, nics->second, b, options);
}

Result<std::pair<VertexId, VertexId>> Router::nics(VertexId a, VertexId b, NicPolicy policy) const {
  const VertexId nic_b = nic_for(b);
  const VertexId nic_a =
      policy == NicPolicy::pxn && c_.device(a).kind == DeviceKind::gpu ? pxn_nic(a, nic_b) : nic_for(a);
  if (nic_a == kNoVertex || nic_b == kNoVertex)
    return Error{"no route from '" + c_.device(a).name + "' to '" + c_.device(b).name +
                 "': a host has no NIC on the fabric"};
  return std::pair{nic_a, nic_b};
}

std::optional<std::array<EdgeId, 2>> Router::nvswitch_hops(VertexId a, VertexId b) const {
  for (EdgeId up : c_.out_edges(a)) {
    if (c_.link(up).kind != LinkKind::NVL || c_.device(c_.target(up)).kind != DeviceKind::nvswitch ||
        out_.edge_down(up) || out_.device_down(c_.target(up)))
      continue;
    for (EdgeId back : c_.out_edges(b))
      if (c_.target(back) == c_.target(up) && c_.link(back).kind == LinkKind::NVL && !out_.edge_down(back))
        return std::array<EdgeId, 2>{up, Cluster::reverse(back)};
  }
  return std::nullopt;
}

Result<std::optional<FabricParts>> Router::fabric_parts(VertexId a, VertexId b, NicPolicy nic) const {
  const Device& da = c_.device(a);
  const Device& db = c_.device(b);
  const bool endpoints = (da.kind == DeviceKind::gpu || da.kind == DeviceKind::nic) &&
                         (db.kind == DeviceKind::gpu || db.kind == DeviceKind::nic);
  if (a == b || !endpoints) return std::optional<FabricParts>{};
  if (near(da, db)) {
    // Other near endpoints, and errors about the endpoints, are route()'s.
    if (da.kind != DeviceKind::gpu || db.kind != DeviceKind::gpu) return std::optional<FabricParts>{};
    const std::optional<std::array<EdgeId, 2>> nvs = nvswitch_hops(a, b);
    if (!nvs) return std::optional<FabricParts>{};
    switch_hops_ = *nvs;
    FabricParts p;
    p.src_local = switch_hops_;
    p.path_class = PathClass::NVL;
    return std::optional<FabricParts>{p};
  }
  Result<std::pair<VertexId, VertexId>> nics = this->nics(a, b, nic);
  if (!nics) return Error{nics.error()};
  Result<Legs> legs = this->legs(a, nics->first, nics->second, b, true);
  if (!legs) return Error{legs.error()};
  FabricParts p;
  if (legs->src) p.src_local = legs->src->edges;
  if (legs->dst) p.dst_local = legs->dst->edges;
  p.fabric = hops_;
  p.segment = legs->reach->segment;
  p.segment_share = legs->reach->segment_share;
  bool dci = legs->reach->segment_ceiling.dci;
  for (const Hop& h : hops_) dci = dci || c_.link(h.edge).kind == LinkKind::DCI;
  p.path_class = dci ? PathClass::DCI : PathClass::NET;
  return std::optional<FabricParts>{p};
}

}  // namespace topoplan

#include "cost/comm_group.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <span>
#include <unordered_map>

#include <boost/container_hash/hash.hpp>

#include "cost/mesh_rings.h"

namespace topoplan {
namespace {

// NCCL's search speed lists are indexed pre-SM90, SM90, SM100 and later.
size_t speed_list(int cc) { return cc >= 100 ? 2 : cc >= 90 ? 1 : 0; }

struct Search {
  int channels = 0;
  double bw = 0;
};

// The ring search: the first speed (highest first) reaching the most total bandwidth, where each
// channel takes `speed` from every GPU's NVLink and one NIC per channel across nodes.
Search search(const std::vector<double>& speeds, double gpu_bw, const std::vector<double>& nic_bws, int max_channels) {
  Search best;
  for (double s : speeds) {
    int n = static_cast<int>(std::floor(gpu_bw / s + 1e-9));
    if (!nic_bws.empty()) {
      int by_nic = 0;
      for (double b : nic_bws) by_nic += static_cast<int>(std::floor(b / s + 1e-9));
      n = std::min(n, by_nic);
    }
    n = std::min(n, max_channels);
    if (n * s > best.channels * best.bw + 1e-9) best = {n, s};
  }
  return best;
}

// What a NIC sends into the fabric, GB/s.
double nic_bw(const Cluster& c, VertexId nic) {
  double bw = 0;
  for (EdgeId e : c.out_edges(nic))
    if (c.link(e).kind == LinkKind::NET) bw += c.link(e).bw_GBps;
  return bw;
}

// For each NIC: the GPU behind it, and the GPU that ends the chain: another GPU on the NIC's
// PCIe switch or CPU when there is one (the latest before the entry in cyclic order), else the
// GPU just before the entry, which then sends over NVLink through the entry GPU (PXN).
void entries_and_exits(const Cluster& c, CommNode& node) {
  const size_t p = node.gpus.size();
  for (VertexId nic : node.nics) {
    size_t e = 0;
    while (e < p && node.gpu_nics[e] != nic) ++e;
    NodeList<VertexId, 4> parents;  // the NIC's PCIe switch or CPU
    for (EdgeId up : c.out_edges(nic))
      if (c.link(up).kind != LinkKind::NET) parents.push_back(c.target(up));
    auto beside_nic = [&](VertexId gpu) {
      for (EdgeId l : c.out_edges(gpu))
        if (std::find(parents.begin(), parents.end(), c.target(l)) != parents.end()) return true;
      return false;
    };
    size_t x = (e + p - 1) % p;
    for (size_t step = p - 1; step >= 1; --step)
      if (beside_nic(node.gpus[(e + step) % p])) {
        x = (e + step) % p;
        break;
      }
    node.entry.push_back(e);
    node.exit.push_back(x);
  }
}

void rails_of(const Cluster& c, CommNode& node) {
  const int host = c.device(node.gpus[0]).host;
  NodeList<VertexId, 8> by_rail;
  bool ok = host >= 0;
  for (VertexId v : node.gpus) ok = ok && c.device(v).host == host;
  if (ok)
    for (VertexId nic : c.hosts()[static_cast<size_t>(host)].nics) {
      int r = c.device(nic).rail;
      if (r < 0) {
        ok = false;
        break;
      }
      if (by_rail.size() <= static_cast<size_t>(r)) by_rail.resize(static_cast<size_t>(r) + 1, kNoVertex);
      by_rail[static_cast<size_t>(r)] = nic;
    }
  for (VertexId nic : node.gpu_nics) {
    int r = nic == kNoVertex ? -1 : c.device(nic).rail;
    ok = ok && r >= 0 && static_cast<size_t>(r) < by_rail.size() && by_rail[static_cast<size_t>(r)] != kNoVertex;
    node.gpu_rails.push_back(r);
  }
  if (ok) node.rail_nics = std::move(by_rail);
}

// Head GPUs of one node's NVLS channels (see CommNode::nvls_heads).
void nvls_heads_of(CommNode& node, bool one_node) {
  const size_t p = node.gpus.size(), limit = static_cast<size_t>(kNcclMaxNvlsArity);
  if (one_node) {
    NodeList<size_t>& order = node.nvls_heads;
    order.resize(p);
    for (size_t i = 0; i < p; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return node.gpus[a] < node.gpus[b]; });
    order.resize(std::min(p, limit));
    return;
  }
  for (size_t e : node.entry)
    if (node.nvls_heads.size() < limit &&
        std::find(node.nvls_heads.begin(), node.nvls_heads.end(), e) == node.nvls_heads.end())
      node.nvls_heads.push_back(e);
}

// NCCL's NVLS graph search (search.cc ncclTopoCompute with the NVLS pattern, 2.25.1 L990-L1132,
// and ncclTopoSearchTryNvls L386-417): channel c is headed by one GPU; at a speed s every GPU
// gives each channel s towards the NVSwitch and back, and a head 2s to its own channel, so H
// channels fit when (H + 1) s <= the GPU's NVLink bandwidth. On one node all H = min(32, GPUs)
// heads are required and the first speed that fits wins; across nodes each head also needs a NIC
// of at least s, and NCCL prefers more channels, then more total bandwidth, trying lower speeds
// while the next is above 0.49 of the best. Pass 2 raises only bwInter, up to twice bwIntra.
NcclGraph nvls_graph(const std::vector<double>& speeds, double gpu_bw, int local_gpus, int heads,
                     const std::vector<double>& head_nic_bws) {
  NcclGraph best;
  if (speeds.empty() || heads < 1 || local_gpus < 2) return best;
  const bool multi_node = !head_nic_bws.empty();
  const double eps = 1e-9;
  // ncclTopoSearchInit: maxBw is the best GPU path (to a GPU, or to a NIC across nodes), totalBw
  // a GPU's NVLink; non-ring patterns scale totalBw by n/(n-1) (L1017-1020).
  double max_bw = gpu_bw;
  if (multi_node) max_bw = *std::max_element(head_nic_bws.begin(), head_nic_bws.end());
  const double total_bw = gpu_bw * local_gpus / (local_gpus - 1.0);
  const int min_channels = multi_node ? 1 : heads;
  size_t i = 0;
  while (i + 1 < speeds.size() && (speeds[i] > max_bw + eps || speeds[i] * min_channels > total_bw + eps)) ++i;
  size_t found = speeds.size();
  for (; i < speeds.size(); ++i) {
    const double s = speeds[i];
    int k = std::min(heads, static_cast<int>(std::floor(gpu_bw / s + eps)) - 1);
    if (multi_node) {
      int nics = 0;
      for (double b : head_nic_bws) nics += b + eps >= s;
      k = std::min(k, nics);
    }
    if (k >= min_channels && (k > best.n_channels || k * s > best.n_channels * best.bw_inter_GBps + eps)) {
      best.n_channels = k;
      best.bw_intra_GBps = best.bw_inter_GBps = s;
      found = i;
    }
    if (best.n_channels == heads) break;  // PERFECT: every head has its channel
    if (best.n_channels > 0 && (i + 1 >= speeds.size() || speeds[i + 1] / best.bw_inter_GBps <= 0.49)) break;
  }
  if (found == speeds.size()) return NcclGraph{};
  // Pass 2: the same channels with a faster bwInter, as far as the slowest NIC in use allows.
  double nic_limit = 1e300;
  if (multi_node) {
    std::vector<double> fast = head_nic_bws;
    std::sort(fast.rbegin(), fast.rend());
    nic_limit = fast[static_cast<size_t>(best.n_channels) - 1];
  }
  for (size_t j = found; j > 0 && best.bw_inter_GBps < 2 * best.bw_intra_GBps && speeds[j - 1] <= nic_limit + eps; --j)
    best.bw_inter_GBps = speeds[j - 1];
  best.intra_nvlink = true;
  return best;
}

// The NVLinks each of the node's GPUs bonds directly to each other one; empty when none does (an
// NVSwitch or PCIe node). A bond is one link at the GPU's lane rate.
Bonds bonds_of(const Cluster& c, const CommNode& node, int cc) {
  Bonds bonds;
  const double lane = nvlink_lane_GBps(cc);
  for (size_t i = 0; i < node.gpus.size(); ++i)
    for (EdgeId e : c.out_edges(node.gpus[i])) {
      if (c.link(e).kind != LinkKind::NVL) continue;
      auto j = std::find(node.gpus.begin(), node.gpus.end(), c.target(e));
      if (j == node.gpus.end()) continue;
      if (bonds.empty()) bonds.assign(node.gpus.size(), std::vector<int>(node.gpus.size()));
      bonds[i][static_cast<size_t>(j - node.gpus.begin())] =
          lane > 0 ? std::max(1, static_cast<int>(std::lround(c.link(e).bw_GBps / lane))) : 1;
    }
  return bonds;
}

// A node's rings and chains on its NVLink mesh. Groups repeat the same few bond patterns (every
// TP group of a DGX-1 job), and scoring is single-threaded: the search runs once per pattern.
void mesh_of(const Cluster& c, CommNode& node, int cc) {
  const Bonds bonds = bonds_of(c, node, cc);
  if (bonds.empty()) return;
  static std::map<Bonds, std::vector<std::vector<size_t>>> rings_cache;
  auto it = rings_cache.find(bonds);
  if (it == rings_cache.end()) it = rings_cache.emplace(bonds, mesh_rings(bonds)).first;
  node.mesh_rings = it->second;
  if (node.mesh_rings.empty()) return;
  std::vector<std::pair<size_t, size_t>> ends;
  for (size_t k = 0; k < node.nics.size(); ++k) ends.emplace_back(node.entry[k], node.exit[k]);
  node.mesh_chains = mesh_chains(bonds, ends);
}

}  // namespace

int CommGroup::nvls_heads() const {
  int m = nodes.empty() ? 0 : static_cast<int>(nodes[0].nvls_heads.size());
  for (const CommNode& n : nodes) m = std::min(m, static_cast<int>(n.nvls_heads.size()));
  return m;
}

int CommGroup::min_local() const {
  int m = nodes.empty() ? 0 : static_cast<int>(nodes[0].gpus.size());
  for (const CommNode& n : nodes) m = std::min(m, static_cast<int>(n.gpus.size()));
  return m;
}

int CommGroup::max_local() const {
  int m = 0;
  for (const CommNode& n : nodes) m = std::max(m, static_cast<int>(n.gpus.size()));
  return m;
}

CommNode& CommNodes::own(size_t i) {
  auto copy = std::make_shared<CommNode>(*nodes_[i]);
  CommNode& out = *copy;
  nodes_[i] = copy.get();
  held_.push_back(std::move(copy));
  return out;
}

bool CommNodes::operator==(const CommNodes& other) const {
  return std::equal(begin(), end(), other.begin(), other.end());
}

NcclCpu cpu_vendor(const std::string& model) {
  if (model.starts_with("Xeon")) return NcclCpu::intel_x86;
  if (model.starts_with("EPYC")) return NcclCpu::amd_x86;
  if (model.starts_with("Grace")) return NcclCpu::arm;
  if (model.starts_with("POWER")) return NcclCpu::power;
  return NcclCpu::other;
}

namespace {

// What a group takes the worst of over its nodes.
struct NodeSummary {
  int cc = 0;                    // the mesh's rings were searched at this compute capability
  double nvlink_GBps = 1e300;    // per GPU into its NVSwitch, the least
  bool one_nvswitch = true;      // every GPU on the node's NVSwitch
  NcclCpu cpu = NcclCpu::other;  // of its first GPU's host
  PathClass intra = PathClass::LOC;
  PathClass inter = PathClass::LOC;  // GPU to NIC, the worst; for groups of several nodes
};

// What one node gives its group: the node (but its NVLS heads, which depend on how many nodes the
// group has) and its summary.
struct NodeFacts : NodeSummary {
  // The node as a group of one node has it and as a group of several does (they differ in their
  // NVLS heads): made when first asked for, most nodes are only ever one of them.
  std::shared_ptr<const CommNode> alone, among;

  const std::shared_ptr<const CommNode>& as(bool one_node) {
    std::shared_ptr<const CommNode>& want = one_node ? alone : among;
    if (!want) {
      auto made = std::make_shared<CommNode>(*(one_node ? among : alone));
      made->nvls_heads.clear();
      nvls_heads_of(*made, one_node);
      want = std::move(made);
    }
    return want;
  }
  std::string inter_error;  // why a GPU cannot reach its NIC, if one cannot
};

NcclCpu host_cpu(const Cluster& c, int host) {
  NcclCpu cpu = NcclCpu::other;
  if (host >= 0)
    for (VertexId v : c.hosts()[static_cast<size_t>(host)].cpus)
      if (cpu == NcclCpu::other) cpu = cpu_vendor(c.device(v).model);
  return cpu;
}

Result<NodeFacts> node_facts(const Cluster& c, const Router& router, const std::vector<VertexId>& gpus, int cc,
                             bool one_node) {
  NodeFacts f;
  CommNode node;
  node.gpus.assign(gpus.begin(), gpus.end());
  const Device& head = c.device(gpus.front());
  node.site = head.site;
  f.cpu = host_cpu(c, head.host);
  for (VertexId v : gpus) {
    const VertexId nic = router.nic_for(v);
    node.gpu_nics.push_back(nic);
    if (nic != kNoVertex && std::find(node.nics.begin(), node.nics.end(), nic) == node.nics.end())
      node.nics.push_back(nic);
    double nvl = 0;
    VertexId nvs = kNoVertex;
    for (EdgeId e : c.out_edges(v))
      if (c.link(e).kind == LinkKind::NVL && c.device(c.target(e)).kind == DeviceKind::nvswitch) {
        nvl += c.link(e).bw_GBps;
        nvs = c.target(e);
      }
    // One NVSwitch per node: a GPU without one, or on another, means no NVLS.
    if (v == gpus.front()) node.nvswitch = nvs;
    if (nvs == kNoVertex || nvs != node.nvswitch) f.one_nvswitch = false;
    f.nvlink_GBps = std::min(f.nvlink_GBps, nvl);
  }
  f.cc = cc;
  entries_and_exits(c, node);
  rails_of(c, node);
  if (node.nvswitch == kNoVertex) mesh_of(c, node, cc);
  // Path classes NCCL's LL128 rule and latency rows read: pairs along the node's chain, and each
  // GPU to its NIC (cheap: every pair is a short local search). On a mesh NCCL's rings step over
  // bonded pairs only, whatever the rank order.
  if (!node.mesh_rings.empty()) f.intra = PathClass::NVL;
  for (size_t i = 0; node.mesh_rings.empty() && i + 1 < gpus.size(); ++i) {
    Result<Route> r = router.route(gpus[i], gpus[i + 1]);
    RETURN_IF_ERROR(r);
    f.intra = std::max(f.intra, r->path_class);
  }
  for (VertexId v : gpus) {
    const VertexId nic = router.nic_for(v);
    if (nic == kNoVertex) {
      f.inter_error = "GPU '" + c.device(v).name + "' has no NIC to reach the other nodes";
      break;
    }
    std::optional<PathClass> cls = router.gpu_nic_class(v, nic);
    if (!cls) {
      f.inter_error = "no path from '" + c.device(v).name + "' to its NIC '" + c.device(nic).name + "'";
      break;
    }
    f.inter = std::max(f.inter, *cls);
  }
  nvls_heads_of(node, one_node);
  (one_node ? f.alone : f.among) = std::make_shared<CommNode>(std::move(node));
  return f;
}

// A node of one host from the same node of the host it is built like (Router::host_twin), its
// devices shifted: its local paths, NICs and NVSwitch are the twin's. Rails and CPU models are
// not in what makes a twin, so the NICs' rails are compared and the CPU read afresh. Nullopt
// where the twin's node is not at hand or anything differs: the caller searches.
// `kept(gpus)` is the node's facts as kept, or null.
template <typename Kept>
std::optional<NodeFacts> twin_facts(const Cluster& c, const Router& router, const std::vector<VertexId>& gpus,
                                    const Kept& kept) {
  const int host = c.device(gpus.front()).host;
  const std::optional<std::pair<int, uint32_t>> twin = router.host_twin(host);
  if (!twin) return std::nullopt;
  const int model = twin->first;
  const uint32_t dv = twin->second;
  NodeList<VertexId, 8> at_twin(gpus.size());  // a host's GPUs, no allocation (a DP group has a node per host)
  for (size_t i = 0; i < gpus.size(); ++i) {
    if (c.device(gpus[i]).host != host) return std::nullopt;
    at_twin[i] = gpus[i] - dv;
  }
  const NodeFacts* from = kept(std::span<const VertexId>(at_twin.data(), at_twin.size()));
  if (!from || !from->inter_error.empty()) return std::nullopt;
  const std::vector<VertexId>&nics = c.hosts()[static_cast<size_t>(host)].nics,
        &twin_nics = c.hosts()[static_cast<size_t>(model)].nics;
  if (nics.size() != twin_nics.size()) return std::nullopt;
  for (size_t k = 0; k < nics.size(); ++k)
    if (nics[k] != twin_nics[k] + dv || c.device(nics[k]).rail != c.device(twin_nics[k]).rail) return std::nullopt;
  auto shift = [dv](VertexId v) { return v == kNoVertex ? kNoVertex : v + dv; };
  NodeFacts out;
  static_cast<NodeSummary&>(out) = *from;
  out.cpu = host_cpu(c, host);
  for (auto [to, node] : {std::pair{&out.alone, &from->alone}, std::pair{&out.among, &from->among}}) {
    if (!*node) continue;
    auto made = std::make_shared<CommNode>(**node);
    for (auto* list : {&made->gpus, &made->gpu_nics, &made->nics})
      for (VertexId& v : *list) v = shift(v);
    for (VertexId& v : made->rail_nics) v = shift(v);
    made->nvswitch = shift(made->nvswitch);
    made->site = c.device(made->gpus.front()).site;
    *to = std::move(made);
  }
  // The NIC each GPU leaves by is the router's pick, which the twin's made alike: checked.
  const CommNode& node = out.alone ? *out.alone : *out.among;
  for (size_t i = 0; i < gpus.size(); ++i)
    if (router.nic_for(gpus[i]) != node.gpu_nics[i]) return std::nullopt;
  return out;
}

struct GpusHash {
  size_t operator()(const std::vector<VertexId>& v) const { return boost::hash_range(v.begin(), v.end()); }
};

}  // namespace

struct CommNodeCache::Impl {
  const Cluster* cluster;
  const Router* router;
  // Per device, what a group reads of a GPU and of its one-GPU node, side by side: the device
  // record, the node's facts and the node are each a cache miss away on a large cluster, and a
  // data-parallel group reads them for every host it spans.
  struct Gpu {
    int cc = 0;           // 0 not looked up yet, -1 unknown model
    size_t node_key = 0;  // its host, or its NVLink domain past the hosts
    // Its one-GPU node among others as `single` keeps it, once made and reaching its NIC (else
    // null), with its summary and mesh rings copied from there.
    const CommNode* among = nullptr;
    NodeSummary facts;
    int mesh_rings = 0;
  };
  std::vector<Gpu> gpu;
  std::unordered_map<std::vector<VertexId>, NodeFacts, GpusHash> nodes;
  // Nodes of one GPU (a data-parallel group's, across hosts), by that GPU: most nodes are, and
  // hashing them was a tenth of a large plan.
  std::vector<std::unique_ptr<NodeFacts>> single;
  // One-GPU nodes searched again at another compute capability: groups may still hold the old.
  std::vector<std::unique_ptr<NodeFacts>> replaced;
  std::vector<int> node_at;  // comm_group_make's scratch: per host, then per NVLink domain
};

CommNodeCache::CommNodeCache(const Cluster& c, const Router& r) : impl_(new Impl{&c, &r}) {}
CommNodeCache::~CommNodeCache() = default;

Result<CommGroup> comm_group_make(const Cluster& c, const Router& router, const std::vector<VertexId>& gpus,
                                  CommNodeCache* cache) {
  CommNodeCache::Impl* kept = cache ? &cache->impl() : nullptr;
  if (kept && (kept->cluster != &c || kept->router != &router))
    return Error{"node facts kept for another cluster or router"};
  CommGroup g;
  if (gpus.empty()) return Error{"the group has no GPUs"};
  // Sorted copy for the duplicate check: a job scores thousands of small groups on a cluster of
  // hundreds of thousands of devices, so nothing here may scale with the cluster.
  std::vector<VertexId> sorted = gpus;
  std::sort(sorted.begin(), sorted.end());
  if (auto dup = std::adjacent_find(sorted.begin(), sorted.end()); dup != sorted.end())
    return Error{"GPU '" + c.device(*dup).name + "' is listed twice"};
  // A node is an NVLink domain when the GPU has one (NVL72: the rack), else its host; numbered
  // in order of their first rank, through the cache's slot per host and domain (kept clear
  // between calls), or a map without a cache.
  std::unordered_map<size_t, int> node_index;
  std::vector<size_t> slots_used;
  auto key_of = [&](const Device& d) {
    return d.scaleup_domain >= 0 ? c.hosts().size() + static_cast<size_t>(d.scaleup_domain)
                                 : static_cast<size_t>(d.host);
  };
  auto node_of = [&](size_t key) {
    const int next = static_cast<int>(slots_used.size());
    if (!kept) {
      auto [it, inserted] = node_index.try_emplace(key, next);
      if (inserted) slots_used.push_back(key);
      return it->second;
    }
    if (kept->node_at.empty()) kept->node_at.assign(c.hosts().size() + c.domains().size(), -1);
    int& at = kept->node_at[key];
    if (at < 0) {
      at = next;
      slots_used.push_back(key);
    }
    return at;
  };
  auto clear_slots = [&] {
    if (kept)
      for (size_t key : slots_used) kept->node_at[key] = -1;
  };
  g.compute_capability = 1 << 20;
  g.ranks = gpus;
  g.node_of_rank.reserve(gpus.size());
  if (kept && kept->gpu.empty()) kept->gpu.resize(c.num_devices());
  for (VertexId v : gpus) {
    CommNodeCache::Impl::Gpu* known = kept ? &kept->gpu[v] : nullptr;
    int cc = known ? known->cc : 0;
    size_t key = known ? known->node_key : 0;
    if (cc <= 0) {
      const Device& d = c.device(v);
      if (d.kind != DeviceKind::gpu) {
        clear_slots();
        return Error{"'" + d.name + "' is not a GPU"};
      }
      if (cc == 0) {
        cc = gpu_compute_capability(d.model);
        key = key_of(d);
        if (known) *known = {.cc = cc > 0 ? cc : -1, .node_key = key};
      }
      if (cc <= 0) {
        clear_slots();
        return Error{"GPU '" + d.name + "' has model '" + d.model +
                     "', whose compute capability is unknown (A100, H100, H200, B200, GB200, L40S ...)"};
      }
    }
    g.compute_capability = std::min(g.compute_capability, cc);
    g.node_of_rank.push_back(node_of(key));
  }
  clear_slots();
  // Each node's GPUs in rank order: a one-GPU node needs no list of its own.
  const size_t nodes = slots_used.size();
  std::vector<size_t> node_size(nodes, 0);
  for (int n : g.node_of_rank) ++node_size[static_cast<size_t>(n)];
  std::vector<std::vector<VertexId>> node_gpus(nodes);
  for (size_t n = 0; n < nodes; ++n)
    if (node_size[n] > 1) node_gpus[n].reserve(node_size[n]);
  for (size_t i = 0; i < gpus.size(); ++i) {
    const size_t n = static_cast<size_t>(g.node_of_rank[i]);
    if (node_size[n] > 1) node_gpus[n].push_back(gpus[i]);
  }
  std::vector<VertexId> first_gpu(nodes, kNoVertex);
  for (size_t i = gpus.size(); i-- > 0;) first_gpu[static_cast<size_t>(g.node_of_rank[i])] = gpus[i];
  g.nvlink_GBps = 1e300;
  g.nvswitch = true;
  g.mesh_rings = 1 << 20;
  g.nodes.reserve(node_gpus.size());
  auto take = [&](size_t n, const NodeSummary& f, int mesh_rings) {
    if (n == 0) g.cpu = f.cpu;
    g.nvswitch = g.nvswitch && f.one_nvswitch;
    g.nvlink_GBps = std::min(g.nvlink_GBps, f.nvlink_GBps);
    g.intra = std::max(g.intra, f.intra);
    if (nodes > 1) g.inter = std::max(g.inter, f.inter);
    g.mesh_rings = std::min(g.mesh_rings, mesh_rings);
  };
  for (size_t n = 0; n < node_gpus.size(); ++n) {
    const bool single = node_size[n] == 1;
    CommNodeCache::Impl::Gpu* known = kept && single && nodes > 1 ? &kept->gpu[first_gpu[n]] : nullptr;
    if (known && known->among && known->facts.cc == g.compute_capability) {
      take(n, known->facts, known->mesh_rings);
      g.nodes.push_back_kept(known->among);
      continue;
    }
    // Kept where the node's mesh was searched at the group's compute capability (mixed
    // generations search a node's at the group's least).
    NodeFacts* f = nullptr;
    std::optional<NodeFacts> fresh;
    if (kept && single) {
      if (kept->single.empty()) kept->single.resize(c.num_devices());
      const std::unique_ptr<NodeFacts>& at = kept->single[first_gpu[n]];
      if (at && at->cc == g.compute_capability) f = at.get();
    } else if (kept) {
      auto at = kept->nodes.find(node_gpus[n]);
      if (at != kept->nodes.end() && at->second.cc == g.compute_capability) f = &at->second;
    }
    if (!f) {
      if (single) node_gpus[n] = {first_gpu[n]};
      // Kept for the same node of the host this one is built like: copied, not searched.
      auto kept_at = [&](std::span<const VertexId> at) -> const NodeFacts* {
        if (at.size() == 1) {
          const NodeFacts* x = kept->single[at[0]].get();
          return x && x->cc == g.compute_capability ? x : nullptr;
        }
        auto it = kept->nodes.find(std::vector<VertexId>(at.begin(), at.end()));
        return it != kept->nodes.end() && it->second.cc == g.compute_capability ? &it->second : nullptr;
      };
      std::optional<NodeFacts> twin = kept ? twin_facts(c, router, node_gpus[n], kept_at) : std::nullopt;
      Result<NodeFacts> made = twin ? Result<NodeFacts>(std::move(*twin))
                                    : node_facts(c, router, node_gpus[n], g.compute_capability, nodes == 1);
      RETURN_IF_ERROR(made);
      if (kept && single) {
        std::unique_ptr<NodeFacts>& at = kept->single[first_gpu[n]];
        if (at) kept->replaced.push_back(std::move(at));
        at = std::make_unique<NodeFacts>(std::move(*made));
        f = at.get();
      } else if (kept) {
        if (kept->nodes.size() >= CommNodeCache::kMaxNodes) kept->nodes.clear();
        f = &kept->nodes.insert_or_assign(node_gpus[n], std::move(*made)).first->second;
      } else {
        f = &fresh.emplace(std::move(*made));
      }
    }
    if (nodes > 1 && !f->inter_error.empty()) return Error{f->inter_error};
    const std::shared_ptr<const CommNode>& node = f->as(nodes == 1);
    const int mesh_rings = static_cast<int>(node->mesh_rings.size());
    take(n, *f, mesh_rings);
    if (kept && single)
      g.nodes.push_back_kept(node.get());
    else
      g.nodes.push_back(node);
    if (known) {
      known->among = node.get();
      known->facts = *f;
      known->mesh_rings = mesh_rings;
    }
  }
  if (!g.nvswitch) g.nvlink_GBps = 0;
  return g;
}

NcclComm comm_group_nccl(const NcclTuning& t, const Cluster& c, const CommGroup& g) {
  NcclComm comm;
  comm.n_ranks = g.size();
  comm.n_nodes = static_cast<int>(g.nodes.size());
  comm.compute_capability = g.compute_capability;
  comm.cpu = g.cpu;
  comm.has_nvswitch = g.nvswitch;
  comm.ll128_enabled =
      nccl_ll128_default_enabled(g.compute_capability, g.intra, g.nodes.size() > 1 ? g.inter : PathClass::LOC);
  const int cc = g.compute_capability;

  // What one GPU can give the channels inside a node: its NVLinks at NCCL's per-link figure, or
  // its PCIe link.
  double gpu_bw = 0;
  if (g.nvswitch) {
    double lanes = std::round(g.nvlink_GBps / nvlink_lane_GBps(cc));
    gpu_bw = lanes * t.nvlink_bw_GBps(cc);
  } else if (g.mesh_rings > 0) {
    gpu_bw = g.mesh_rings * t.nvlink_bw_GBps(cc);  // each ring one link's speed
  } else {
    gpu_bw = t.pci_bw;
  }
  std::vector<double> nic_bws;
  if (comm.n_nodes > 1) {
    // The node with the fewest NICs bounds every ring.
    const CommNode& thin = *std::min_element(g.nodes.begin(), g.nodes.end(), [](const CommNode& a, const CommNode& b) {
      return a.nics.size() < b.nics.size();
    });
    for (VertexId nic : thin.nics) nic_bws.push_back(nic_bw(c, nic));
  }
  const size_t list = speed_list(cc);
  const auto& speeds = comm.n_nodes > 1 ? t.search_speeds_inter_GBps[list] : t.search_speeds_intra_GBps[list];
  // One GPU alone has no ring to search; NCCL still runs one channel per... one local copy.
  // A mesh node alone runs the rings it packs at one link's speed; across nodes the NICs decide.
  Search s = g.size() == 1 ? Search{1, gpu_bw}
             : g.mesh_rings > 0 && nic_bws.empty()
                 ? Search{std::min(g.mesh_rings, t.ring_graph_max_channels), t.nvlink_bw_GBps(cc)}
                 : search(speeds, gpu_bw, nic_bws, t.ring_graph_max_channels);
  if (s.channels == 0) s = {1, std::min(gpu_bw, nic_bws.empty() ? gpu_bw : nic_bws[0])};
  // search.cc ncclTopoDupChannels (2.25.1): fast channels split in two, except past SM80 (ccMin >
  // 80) below 50 GB/s with more than 4 channels, and never past the graph's channel limit.
  if (s.bw >= 25.0 && !(cc > 80 && s.bw < 50.0 && s.channels > 4) && s.channels < t.ring_graph_max_channels) {
    s.channels = std::min(2 * s.channels, t.ring_graph_max_channels);
    s.bw /= 2;
  }
  NcclGraph ring;
  ring.n_channels = s.channels;
  ring.bw_intra_GBps = ring.bw_inter_GBps = s.bw;
  ring.intra_nvlink = g.intra <= PathClass::NVB;
  comm.graphs[static_cast<size_t>(NcclAlgo::ring)] = ring;
  comm.graphs[static_cast<size_t>(NcclAlgo::tree)] = ring;
  // ncclTopoPostset doubles the communicator's channels over the ring graph's.
  comm.n_channels = std::min(2 * s.channels, t.max_channels);
  // NVLS: an NVSwitch with multicast (SM90+, search.cc L990) and more than 2 GPUs in the node
  // (transport/nvls.cc ncclNvlsInit); NCCL then uses it where its tuner finds it faster.
  if (g.nvswitch && cc >= 90 && g.min_local() >= t.nvls_min_local_gpus) {
    const int heads = std::min(g.nvls_heads(), t.nvls_max_arity);
    std::vector<double> head_nic_bws;
    if (comm.n_nodes > 1) {
      const CommNode& thin = *std::min_element(
          g.nodes.begin(), g.nodes.end(),
          [](const CommNode& a, const CommNode& b) { return a.nvls_heads.size() < b.nvls_heads.size(); });
      for (size_t h : thin.nvls_heads) head_nic_bws.push_back(nic_bw(c, thin.gpu_nics[h]));
    }
    NcclGraph nvls = nvls_graph(speeds, gpu_bw, g.min_local(), heads, head_nic_bws);
    comm.nvls_support = nvls.n_channels > 0;
    comm.graphs[static_cast<size_t>(NcclAlgo::nvls)] = nvls;
  }
  return comm;
}

}  // namespace topoplan

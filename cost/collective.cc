#include "cost/collective.h"

#include <algorithm>
#include <cmath>

#include "cost/transfers.h"

namespace topoplan {
namespace {

constexpr NcclAlgo kAlgos[] = {NcclAlgo::ring, NcclAlgo::tree, NcclAlgo::nvls, NcclAlgo::nvls_tree, NcclAlgo::pat};
constexpr NcclProto kProtos[] = {NcclProto::ll, NcclProto::ll128, NcclProto::simple};

bool point_to_point(CollectiveOp op) { return op == CollectiveOp::alltoall || op == CollectiveOp::sendrecv; }

int ceil_log2(int n) {
  int l = 0;
  while ((1 << l) < n) ++l;
  return l;
}

// The share of a link's bandwidth a protocol's payload gets, as NCCL's tuner discounts it
// (tuning.cc "model refinements", in the tuning table): LL sends a flag with every 4 data bytes,
// LL128 one per 120; PAT's factor is NCCL's measured efficiency of that algorithm. NCCL's x0.92
// for the Simple tree is not here: it corrects NCCL's nominal channel speeds, and on links the
// tree moves at the link's rate (3 GB200 racks over IB, nccl#1801: 16 GiB tree all-reduce of
// 24 GPUs at 485.68 GB/s busbw, each NIC's 3 GiB at the NET efficiency's 47.5 GB/s).
double protocol_factor(const NcclTuning& t, NcclAlgo a, NcclProto p, int nodes) {
  switch (a) {
    case NcclAlgo::ring:
      return p == NcclProto::ll ? t.ring_ll_factor : p == NcclProto::ll128 ? t.ring_ll128_factor : 1.0;
    case NcclAlgo::tree:
      return p == NcclProto::ll      ? t.tree_ll_factor
             : p == NcclProto::ll128 ? (nodes == 1 ? t.tree_ll128_factor_one_node : t.tree_ll128_factor_multi_node)
                                     : 1.0;
    case NcclAlgo::pat:
      return t.pat_factor;
    default:
      return 1.0;
  }
}

// Tree edges between sites on the worst leaf-to-root path of either tree.
int tree_site_crossings(const CommGroup& g) {
  const int n = static_cast<int>(g.nodes.size());
  int worst = 0;
  for (const std::vector<int>& parent : {nccl_btree_parents(n), nccl_dtree_parents(n)})
    for (int k = 0; k < n; ++k) {
      int crossings = 0;
      for (int v = k; parent[static_cast<size_t>(v)] >= 0; v = parent[static_cast<size_t>(v)])
        crossings +=
            g.nodes[static_cast<size_t>(v)].site != g.nodes[static_cast<size_t>(parent[static_cast<size_t>(v)])].site;
      worst = std::max(worst, crossings);
    }
  return worst;
}

bool chain(CollectiveOp op) { return op == CollectiveOp::broadcast || op == CollectiveOp::reduce; }

// The most site changes on a chunk's path around the ring: its ranks visit each node's GPUs in
// turn, a closed ring's chunk travels `hops` consecutive hops from wherever it starts, and a
// chain's (broadcast, reduce) runs once from the root to the end.
int ring_path_crossings(const CommGroup& g, int hops, bool closed) {
  const int n = g.size();
  std::vector<int> crosses(static_cast<size_t>(n), 0);  // hop from ring position i to i + 1
  int position = 0, total = 0;
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    position += static_cast<int>(g.nodes[k].gpus.size());
    const bool change = g.nodes[k].site != g.nodes[(k + 1) % g.nodes.size()].site;
    crosses[static_cast<size_t>(position - 1)] = change;
    total += change;
  }
  if (!closed) return total - crosses[static_cast<size_t>(n - 1)];
  const int rest = hops % n;
  int window = 0;
  for (int i = 0; i < rest; ++i) window += crosses[static_cast<size_t>(i)];
  int worst = window;
  for (int start = 1; start < n && rest > 0; ++start) {
    window += crosses[static_cast<size_t>((start + rest - 1) % n)] - crosses[static_cast<size_t>(start - 1)];
    worst = std::max(worst, window);
  }
  return hops / n * total + worst;
}

// Times the one-way DCI latency lies on the critical path. A ring step waits only for its
// neighbour, and with NCCL_STEPS slots in flight per connection the steps pipeline, so a chunk
// pays each DCI crossing on its path once, not every step: n-1 hops for all_gather and
// reduce_scatter, 2(n-1) for all_reduce (reduce-scatter, then all-gather). A tree pays for the
// crossings on its deepest path, up and back down.
int dci_crossings(CollectiveOp op, NcclAlgo a, const CommGroup& g) {
  if (point_to_point(op)) return 1;
  switch (a) {
    case NcclAlgo::ring:
      return ring_path_crossings(g, (op == CollectiveOp::all_reduce ? 2 : 1) * (g.size() - 1), !chain(op));
    case NcclAlgo::tree:
    case NcclAlgo::nvls_tree:
      return 2 * tree_site_crossings(g);
    case NcclAlgo::pat:
      return ceil_log2(g.size());
    default:
      return 0;
  }
}

// Bytes one connection carries across a node boundary, and what it may have in flight: NCCL_STEPS
// buffer slots, each holding at most a step of payload and no more than the algorithm hands the
// connection per step. A slot comes back a round trip after it left, so over a long link the
// connection moves at most that per round trip (bandwidth-delay product), and a ring of many
// small steps at most NCCL_STEPS slots of its steps.
struct Connection {
  double bytes = 0, in_flight = 0;
};
Connection boundary_connection(const NcclTuning& t, const NcclComm& comm, CollectiveOp op, NcclAlgo a, NcclProto p,
                               int ranks, double bytes, double channels) {
  if (point_to_point(op)) {
    // Each remote peer gets its own channels; alltoall sends S/n to each.
    const double per_peer = (op == CollectiveOp::alltoall ? bytes / ranks : bytes) / t.p2p_net_channels_per_peer;
    return {per_peer, t.ncclsteps * std::min(static_cast<double>(t.p2p_net_chunk_bytes), per_peer)};
  }
  const double payload = p == NcclProto::ll ? t.ll_data_fraction : p == NcclProto::ll128 ? t.ll128_data_fraction : 1.0;
  const double step = static_cast<double>(t.buffer_bytes[static_cast<size_t>(p)]) * payload / t.ncclsteps;
  auto held = [&](double conn, double per_step, int slots_per_step) {
    return Connection{conn, t.ncclsteps * std::min(step, per_step / slots_per_step)};
  };
  switch (a) {
    case NcclAlgo::ring:
    case NcclAlgo::pat: {
      const double conn = nccl_busbw_factor(op, ranks) * bytes / channels;
      // A closed ring hands each connection one rank's chunk per step (Simple splits it over
      // ring_chunk_steps slots); a chain streams its share.
      if (chain(op)) return held(conn, conn, 1);
      return held(conn, bytes / ranks / channels, p == NcclProto::simple ? t.ring_chunk_steps : 1);
    }
    case NcclAlgo::nvls_tree: {
      const double conn = bytes / std::max(nccl_nvls_ops(t, comm), 1);
      return held(conn, static_cast<double>(nccl_nvls_chunk_bytes(t, comm, a, bytes)), 1);
    }
    default:
      return held(bytes / channels, bytes / channels, 1);  // a tree channel streams its share
  }
}

NcclHw hw_for(PathClass c) {
  if (c >= PathClass::NET) return NcclHw::net;
  if (c <= PathClass::NVB) return NcclHw::nvlink;
  return NcclHw::pci;
}

// What NCCL's channels can push (algorithm bandwidth, GB/s) on a communicator whose graphs have
// unbounded links: the tuning table's per-channel caps, and for NVLS tree what one head's channel
// carries (per_channel_max_nvls_tree_bw_GBps, a busbw, times the heads).
double channel_cap_GBps(const NcclTuning& t, const NcclComm& uncapped, CollectiveOp op, NcclAlgo a, NcclProto p) {
  double cap = nccl_estimate(t, uncapped, op, a, p).bandwidth_GBps;
  if (a == NcclAlgo::nvls_tree) {
    const int arch = static_cast<int>(gpu_arch_from_compute_capability(uncapped.compute_capability));
    const double per_head = t.per_channel_max_nvls_tree_bw_GBps[arch][nccl_node_scale(uncapped.n_nodes)];
    const int heads = uncapped.graphs[static_cast<size_t>(NcclAlgo::nvls)].n_channels;
    if (per_head > 0 && heads > 0) cap = std::min(cap, heads * per_head / nccl_busbw_factor(op, uncapped.n_ranks));
  }
  return cap;
}

// The rates a chunk crosses NVLS tree's stages at, the slowest head's: its NVLink into the switch
// (multimem) and its NIC onto the network. 0 where a head has no such link.
struct NvlsStageRates {
  double nvlink_GBps = 0, nic_GBps = 0;
};
NvlsStageRates nvls_stage_rates(const Cluster& c, const Calibration& cal, const CommGroup& g) {
  NvlsStageRates out;
  bool first = true;
  for (const CommNode& node : g.nodes)
    for (size_t h : node.nvls_heads) {
      double nvlink = 0, nic = 0;
      for (EdgeId e : c.out_edges(node.gpus[h]))
        if (c.target(e) == node.nvswitch) nvlink = c.link(e).bw_GBps * cal.multimem_efficiency(c, e);
      for (EdgeId e : c.out_edges(node.gpu_nics[h]))
        if (c.link(e).kind == LinkKind::NET) nic = std::max(nic, c.link(e).bw_GBps * cal.copy_efficiency(c, e));
      out.nvlink_GBps = first ? nvlink : std::min(out.nvlink_GBps, nvlink);
      out.nic_GBps = first ? nic : std::min(out.nic_GBps, nic);
      first = false;
    }
  return out;
}

}  // namespace

std::string collective_algorithm_name(CollectiveOp op, NcclAlgo algo) {
  if (op == CollectiveOp::alltoall) return "pairwise";
  if (op == CollectiveOp::sendrecv) return "p2p";
  return std::string(to_string(algo));
}

// One algorithm's transfers routed at a size of one byte: link loads scale with the size.
struct CollectiveModel::Profile {
  NcclAlgo algo = NcclAlgo::ring;
  bool loaded = false;       // what follows is known
  std::string unavailable;   // why it cannot run, when it cannot
  LinkLoad::Peak peak;       // at 1 byte
  LinkLoad::Peak even_peak;  // the same split evenly (hash or static routing only)
  double dci_latency_us = 0;
  PathClass worst = PathClass::LOC;
};

struct CollectiveModel::Prepared {
  CollectiveOp op = CollectiveOp::all_reduce;
  std::vector<VertexId> gpus;
  CommGroup group;
  NcclComm comm, comm_uncapped;  // the second with unbounded links: only the channel caps remain
  NvlsStageRates nvls_stages;
  std::vector<Profile> profiles;
};

CollectiveModel::CollectiveModel(const Cluster& cluster, const Router& router, const NcclTuning& tuning,
                                 const Calibration& calibration, const LinkShare* share)
    : cluster_(cluster), router_(router), tuning_(tuning), cal_(calibration), load_(router, calibration, share) {
  // Each algorithm's load is read for its busiest link alone.
  load_.any_order();
  if (cluster.routing.mode != Routing::adaptive) {
    even_ = std::make_unique<LinkLoad>(router, calibration, share, Spread::even);
    even_->any_order();
  }
}

CollectiveModel::~CollectiveModel() = default;

Result<void> CollectiveModel::prepare(const CollectiveRequest& req) {
  if (prepared_ && prepared_->op == req.op && prepared_->gpus == req.gpus) return {};
  prepared_.reset();
  Result<CommGroup> group = comm_group_make(cluster_, router_, req.gpus, nodes_);
  RETURN_IF_ERROR(group);
  if (group->size() < 2) return Error{"a collective needs at least 2 GPUs, the group has 1"};
  auto p = std::make_unique<Prepared>();
  p->op = req.op;
  p->gpus = req.gpus;
  p->group = std::move(*group);
  p->comm = comm_group_nccl(tuning_, cluster_, p->group);
  p->comm_uncapped = p->comm;
  if (p->comm.nvls_support && p->group.nodes.size() > 1) p->nvls_stages = nvls_stage_rates(cluster_, cal_, p->group);
  for (NcclGraph& graph : p->comm_uncapped.graphs) graph.bw_intra_GBps = graph.bw_inter_GBps = 1e12;
  std::vector<NcclAlgo> algos(std::begin(kAlgos), std::end(kAlgos));
  if (point_to_point(req.op)) algos = {NcclAlgo::ring};  // one pattern; the name is the op's
  for (NcclAlgo a : algos) p->profiles.push_back({.algo = a});
  prepared_ = std::move(p);
  return {};
}

Result<void> CollectiveModel::load(Profile& prof) {
  if (prof.loaded) return {};
  const Prepared& p = *prepared_;
  Result<std::vector<Transfer>> transfers =
      collective_transfers(p.group, p.op, prof.algo, 1.0, {p.comm.n_channels, tuning_.p2p_net_channels_per_peer});
  if (!transfers) {
    prof.unavailable = transfers.error();
    prof.loaded = true;
    return {};
  }
  load_.clear();
  Result<void> ok = load_.add(*transfers);
  if (ok && even_) {
    even_->clear();
    ok = even_->add(*transfers);
  }
  if (!ok) {
    prepared_.reset();  // the next prediction prepares afresh
    return ok;
  }
  prof.peak = load_.busiest();
  prof.dci_latency_us = load_.dci_latency_us();
  prof.worst = load_.worst_class();
  if (even_) prof.even_peak = even_->busiest();
  prof.loaded = true;
  load_.clear();
  if (even_) even_->clear();
  return {};
}

Result<void> CollectiveModel::load_all() {
  for (Profile& prof : prepared_->profiles) RETURN_IF_ERROR(load(prof));
  return {};
}

Result<CollectivePrediction> CollectiveModel::evaluate(const CollectiveRequest& req, double bytes,
                                                       const Profile* only) const {
  const Prepared& p = *prepared_;
  const NcclTuning& t = tuning_;
  const CommGroup& g = p.group;
  const int nodes = static_cast<int>(g.nodes.size());
  CollectivePrediction out;
  out.op = req.op;
  out.bytes = bytes;
  out.ranks = g.size();
  out.nodes = nodes;
  out.channels = p.comm.n_channels;
  if (p.comm.nvls_support) out.nvls_heads = p.comm.graphs[static_cast<size_t>(NcclAlgo::nvls)].n_channels;

  struct Scored {
    CollectiveCandidate c;
    const Profile* profile;
    bool channel_bound;
  };
  std::vector<Scored> scored;
  std::string refused;
  for (const Profile& prof : p.profiles) {
    if (only && &prof != only) continue;
    if (req.algo && !point_to_point(req.op) && *req.algo != prof.algo) continue;
    if (!prof.unavailable.empty()) {
      refused = prof.unavailable;
      continue;
    }
    const double link_us = prof.peak.busy_us * bytes;
    const double class_us =
        prof.peak.any ? cal_.latency_us[static_cast<size_t>(cluster_.link(prof.peak.edge).kind)] : 0;
    const double dci_us = prof.dci_latency_us > 0 ? dci_crossings(req.op, prof.algo, g) * prof.dci_latency_us : 0;
    // Across a DCI link each connection is held to its window per round trip.
    auto window_us = [&](NcclAlgo a, NcclProto proto, double channels) {
      if (!(prof.dci_latency_us > 0)) return 0.0;
      const Connection conn = boundary_connection(t, p.comm, req.op, a, proto, g.size(), bytes, channels);
      // The first window's trip is the propagation already charged; each further one waits a round trip.
      return std::max(0.0, conn.bytes / conn.in_flight - 1) * 2 * prof.dci_latency_us;
    };
    for (NcclProto proto : kProtos) {
      if (req.proto && *req.proto != proto) continue;
      CollectiveCandidate c;
      c.algorithm = collective_algorithm_name(req.op, prof.algo);
      c.algo = prof.algo;
      c.proto = proto;
      c.dci_us = dci_us;
      c.overhead_us = cal_.launch_us + class_us;
      if (prof.peak.any) {
        c.has_link = true;
        c.link_edge = prof.peak.edge;
        c.link_bytes = prof.peak.bytes * bytes;
        c.link_GBps = prof.peak.effective_GBps;
      }
      bool channel_bound = false;
      if (point_to_point(req.op)) {
        // NCCL's p2p is Simple over its own connections; it is not in the tuner's tables, so
        // charge one Simple ring step on the worst hop class, plus the per-operation network
        // overhead for every remote peer a rank posts to (alltoall: all ranks on other nodes).
        if (proto != NcclProto::simple) continue;
        const double remote_peers = req.op == CollectiveOp::alltoall ? g.size() - g.max_local() : (nodes > 1);
        c.nccl_latency_us =
            t.base_latency_us[static_cast<size_t>(NcclAlgo::ring)][2] +
            t.hw_latency_us[static_cast<size_t>(hw_for(prof.worst))][static_cast<size_t>(NcclAlgo::ring)][2] +
            remote_peers * nccl_net_overhead_us(t, p.comm.cpu);
        c.latency_us = c.nccl_latency_us + c.overhead_us + dci_us;
        c.link_us = link_us;
        c.window_us = window_us(prof.algo, proto, 0);
        c.transfer_us = std::max(link_us, c.window_us);
        c.even_link_us = prof.even_peak.busy_us * bytes;
      } else {
        double nccl_lat = nccl_latency_us(t, p.comm, req.op, prof.algo, proto, bytes);
        if (nccl_lat < 0) continue;  // NCCL does not run this pair here
        double correction = nccl_tree_correction(t, req.op, prof.algo, proto, bytes);
        const double factor = protocol_factor(t, prof.algo, proto, nodes) * correction;
        double bw_us = link_us / factor;
        c.even_link_us = prof.even_peak.busy_us * bytes / factor;
        // Small calls run on fewer channels, and the caps NCCL gives per channel (LL128, trees)
        // shrink with them; LL's cap is NCCL's total for the protocol.
        const double channels = nccl_channels(t, p.comm, prof.algo, proto, bytes);
        const bool per_channel_cap = (prof.algo == NcclAlgo::ring && proto == NcclProto::ll128) ||
                                     (prof.algo == NcclAlgo::tree && proto != NcclProto::ll);
        const double used = per_channel_cap ? channels / std::max(p.comm.n_channels, 1) : 1.0;
        const double cap_GBps = channel_cap_GBps(t, p.comm_uncapped, req.op, prof.algo, proto) * used;
        double cap_us = cap_GBps < 1e9 ? bytes / (1000.0 * cap_GBps * correction) : 0;
        c.link_us = bw_us;
        c.cap_us = cap_us;
        c.cap_GBps = cap_us > 0 ? cap_GBps * correction : 0;
        c.nccl_time_us = nccl_time_us(t, p.comm, req.op, prof.algo, proto, bytes);
        c.window_us = window_us(prof.algo, proto, channels);
        channel_bound = cap_us > std::max(bw_us, c.window_us);
        double transfer = std::max({bw_us, cap_us, c.window_us});
        if (prof.algo == NcclAlgo::ring && proto == NcclProto::simple && chain(req.op)) {
          // A chain (broadcast, reduce) starts with the root's data alone: the last hop's link
          // waits until the first slice has been forwarded down the n-2 hops before it. Closed
          // rings have no such fill, as every rank sends its own chunk in the first step and
          // forwards what it received behind it; LL and LL128 forward line by line.
          const double per_channel_hop = bytes / channels;
          const double step_bytes = static_cast<double>(t.buffer_bytes[2]) / t.ncclsteps;
          const double slice = std::min(step_bytes * t.chain_slice_steps, per_channel_hop);
          c.fill_us = (g.size() - 2) * transfer * slice / per_channel_hop;
          transfer += c.fill_us;
        }
        if (prof.algo == NcclAlgo::nvls || prof.algo == NcclAlgo::nvls_tree) {
          // Each of NVLS's channel x head lanes moves its chunks through stages one chunk at a
          // time, each stage waiting for the whole chunk from the one before (all_reduce.h
          // RunWorkColl NVLS / NVLS_TREE, buffers not registered as nccl-tests' are): all_reduce
          // copies a chunk into the NVLS buffer (scatter), reduces and stores it multicast, then
          // copies it out (gather), two hand-offs; all_gather and reduce_scatter one. NVLS tree
          // puts the network between: the reduced chunk goes up the tree and back down, a hop
          // per level, and is stored multicast before the gather. The NVLink stages move a
          // chunk per lane at the head's multimem rate, the network ones at its NIC's shared by
          // the head's channels; a call under a chunk per lane moves smaller chunks.
          const double ops = nccl_nvls_ops(t, p.comm);
          const double chunk =
              std::min(static_cast<double>(nccl_nvls_chunk_bytes(t, p.comm, prof.algo, bytes)), bytes / ops);
          if (prof.algo == NcclAlgo::nvls) {
            const int handoffs = req.op == CollectiveOp::all_reduce ? 2 : 1;
            c.fill_us = handoffs * transfer * ops * chunk / bytes;
          } else if (p.nvls_stages.nvlink_GBps > 0 && p.nvls_stages.nic_GBps > 0) {
            const double lanes_per_head = ops / std::max(out.nvls_heads, 1);
            const double nvlink_us = ops * chunk / (1000.0 * p.nvls_stages.nvlink_GBps);
            const double network_us = lanes_per_head * chunk / (1000.0 * p.nvls_stages.nic_GBps);
            c.fill_us = 3 * nvlink_us + 2 * ceil_log2(nodes) * network_us;
          }
          transfer += c.fill_us;
        }
        c.nccl_latency_us = nccl_lat;
        c.latency_us = nccl_lat + c.overhead_us + dci_us;
        c.transfer_us = transfer;
      }
      c.time_us = c.latency_us + c.transfer_us;
      scored.push_back({c, &prof, channel_bound});
    }
  }
  if (scored.empty()) {
    std::string what = std::string(to_string(req.op));
    if (req.algo) what += " with --algo " + std::string(to_string(*req.algo));
    if (req.proto) what += " with --proto " + std::string(to_string(*req.proto));
    return Error{"no way to run " + what + " on this group" + (refused.empty() ? "" : ": " + refused)};
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const Scored& a, const Scored& b) { return a.c.time_us < b.c.time_us; });
  // NCCL runs what its tuner picks from its own estimates, not what is fastest on the links:
  // that pair goes first when topoplan can expand it (it cannot expand CollNet), the rest follow.
  if (!point_to_point(req.op)) {
    const NcclChoice pick = nccl_choose(t, p.comm, req.op, bytes, req.algo, req.proto);
    auto it = std::find_if(scored.begin(), scored.end(), [&](const Scored& s) {
      return pick.ok && s.c.algo == pick.algo && s.c.proto == pick.proto;
    });
    out.tuner_pick = it != scored.end();
    if (it != scored.end()) std::rotate(scored.begin(), it, it + 1);
  }
  const Scored& best = scored.front();
  out.algorithm = best.c.algorithm;
  out.algo = best.c.algo;
  out.proto = best.c.proto;
  out.time_us = best.c.time_us;
  out.latency_us = best.c.latency_us;
  out.dci_us = best.c.dci_us;
  out.transfer_us = best.c.transfer_us;
  out.channel_bound = best.channel_bound;
  out.algbw_GBps = bytes / (1000.0 * out.time_us);
  out.busbw_GBps = out.algbw_GBps * nccl_busbw_factor(req.op, g.size());
  out.routing = cluster_.routing;
  auto bottleneck = [&](const LinkLoad::Peak& pk) {
    return CollectivePrediction::Bottleneck{pk.edge, cluster_.edge_name(pk.edge), cluster_.link(pk.edge).kind,
                                            pk.bytes * bytes, pk.effective_GBps};
  };
  if (best.profile->peak.any) out.bottleneck = bottleneck(best.profile->peak);
  if (even_ && best.profile->even_peak.any) out.even_bottleneck = bottleneck(best.profile->even_peak);
  for (const Scored& s : scored) out.candidates.push_back(s.c);
  return out;
}

const CommGroup& CollectiveModel::group() const { return prepared_->group; }

Result<CollectivePrediction> CollectiveModel::predict(const CollectiveRequest& req) {
  if (!(req.bytes > 0)) return Error{"the size must be > 0 bytes"};
  RETURN_IF_ERROR(prepare(req));
  RETURN_IF_ERROR(load_all());
  return evaluate(req, req.bytes);
}

Result<CollectivePrediction> CollectiveModel::predict_pick(const CollectiveRequest& req) {
  if (!(req.bytes > 0)) return Error{"the size must be > 0 bytes"};
  RETURN_IF_ERROR(prepare(req));
  // NCCL's pick needs only the communicator; its algorithm's links decide its time.
  const NcclChoice pick = point_to_point(req.op)
                              ? NcclChoice{}
                              : nccl_choose(tuning_, prepared_->comm, req.op, req.bytes, req.algo, req.proto);
  if (Profile* prof = pick.ok ? profile(pick.algo) : nullptr) {
    RETURN_IF_ERROR(load(*prof));
    if (Result<CollectivePrediction> out = evaluate(req, req.bytes, prof); out && out->tuner_pick) return out;
  }
  RETURN_IF_ERROR(load_all());
  return evaluate(req, req.bytes);
}

double CollectiveModel::busiest_us_per_byte(NcclAlgo algo) const {
  const Profile* prof = profile(algo);
  return prof ? prof->peak.busy_us : 0;
}

CollectiveModel::Profile* CollectiveModel::profile(NcclAlgo algo) const {
  for (Profile& prof : prepared_->profiles)
    if (prof.algo == algo) return &prof;
  return nullptr;
}

Result<std::vector<CollectivePrediction>> CollectiveModel::sweep(const CollectiveRequest& req, double min_bytes,
                                                                 double max_bytes) {
  if (!(min_bytes > 0) || max_bytes < min_bytes) return Error{"a sweep needs 0 < min <= max"};
  RETURN_IF_ERROR(prepare(req));
  RETURN_IF_ERROR(load_all());
  std::vector<CollectivePrediction> out;
  for (double b = min_bytes; b <= max_bytes * (1 + 1e-12); b *= 2) {
    Result<CollectivePrediction> r = evaluate(req, b);
    RETURN_IF_ERROR(r);
    out.push_back(std::move(*r));
  }
  return out;
}

}  // namespace topoplan

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
    case NcclAlgo::pat: return t.pat_factor;
    default: return 1.0;
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
        crossings += g.nodes[static_cast<size_t>(v)].site != g.nodes[static_cast<size_t>(parent[static_cast<size_t>(v)])].site;
      worst = std::max(worst, crossings);
    }
  return worst;
}

// Steps on the algorithm's critical path that cross a DCI link and so pay its propagation: every
// ring step waits for its slowest hop; a tree pays for the crossings on its deepest path, up and
// back down.
int dci_steps(CollectiveOp op, NcclAlgo a, const CommGroup& g) {
  if (point_to_point(op)) return 1;
  switch (a) {
    case NcclAlgo::ring: return nccl_ring_steps(op, g.size());
    case NcclAlgo::tree:
    case NcclAlgo::nvls_tree: return 2 * tree_site_crossings(g);
    case NcclAlgo::pat: return ceil_log2(g.size());
    default: return 0;
  }
}

NcclHw hw_for(PathClass c) {
  if (c >= PathClass::NET) return NcclHw::net;
  if (c <= PathClass::NVB) return NcclHw::nvlink;
  return NcclHw::pci;
}

// What NCCL's channels can push (algorithm bandwidth, GB/s) on a communicator whose graphs have
// unbounded links: the tuning table's per-channel caps, and for NVLS tree what one head's channel
// carries (per_channel_max_nvls_tree_bw_gbps, a busbw, times the heads).
double channel_cap_gbps(const NcclTuning& t, const NcclComm& uncapped, CollectiveOp op, NcclAlgo a, NcclProto p) {
  double cap = nccl_estimate(t, uncapped, op, a, p).bandwidth_gbps;
  if (a == NcclAlgo::nvls_tree) {
    const int arch = static_cast<int>(gpu_arch_from_compute_capability(uncapped.compute_capability));
    const double per_head = t.per_channel_max_nvls_tree_bw_gbps[arch][nccl_node_scale(uncapped.n_nodes)];
    const int heads = uncapped.graphs[static_cast<size_t>(NcclAlgo::nvls)].n_channels;
    if (per_head > 0 && heads > 0) cap = std::min(cap, heads * per_head / nccl_busbw_factor(op, uncapped.n_ranks));
  }
  return cap;
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
  std::string unavailable;  // why it cannot run, when it cannot
  LinkLoad::Peak peak;      // at 1 byte
  double dci_latency_us = 0;
  PathClass worst = PathClass::LOC;
};

struct CollectiveModel::Prepared {
  CollectiveOp op = CollectiveOp::all_reduce;
  std::vector<VertexId> gpus;
  CommGroup group;
  NcclComm comm, comm_uncapped;  // the second with unbounded links: only the channel caps remain
  std::vector<Profile> profiles;
};

CollectiveModel::CollectiveModel(const Cluster& cluster, const Router& router, const NcclTuning& tuning,
                                 const Calibration& calibration, const LinkShare* share)
    : cluster_(cluster), router_(router), tuning_(tuning), cal_(calibration), load_(router, calibration, share) {}

CollectiveModel::~CollectiveModel() = default;

Result<bool> CollectiveModel::prepare(const CollectiveRequest& req) {
  if (prepared_ && prepared_->op == req.op && prepared_->gpus == req.gpus) return true;
  prepared_.reset();
  Result<CommGroup> group = comm_group_make(cluster_, router_, req.gpus);
  if (!group) return Error{group.error()};
  if (group->size() < 2) return Error{"a collective needs at least 2 GPUs, the group has 1"};
  auto p = std::make_unique<Prepared>();
  p->op = req.op;
  p->gpus = req.gpus;
  p->group = std::move(*group);
  p->comm = comm_group_nccl(tuning_, cluster_, p->group);
  p->comm_uncapped = p->comm;
  for (NcclGraph& graph : p->comm_uncapped.graphs) graph.bw_intra_gbps = graph.bw_inter_gbps = 1e12;
  std::vector<NcclAlgo> algos(std::begin(kAlgos), std::end(kAlgos));
  if (point_to_point(req.op)) algos = {NcclAlgo::ring};  // one pattern; the name is the op's
  for (NcclAlgo a : algos) {
    Profile prof;
    prof.algo = a;
    Result<std::vector<Transfer>> transfers = collective_transfers(p->group, req.op, a, 1.0);
    if (!transfers) {
      prof.unavailable = transfers.error();
      p->profiles.push_back(std::move(prof));
      continue;
    }
    load_.clear();
    if (Result<bool> ok = load_.add(*transfers); !ok) return Error{ok.error()};
    prof.peak = load_.busiest();
    prof.dci_latency_us = load_.dci_latency_us();
    prof.worst = load_.worst_class();
    p->profiles.push_back(std::move(prof));
  }
  load_.clear();
  prepared_ = std::move(p);
  return true;
}

Result<CollectivePrediction> CollectiveModel::evaluate(const CollectiveRequest& req, double bytes) const {
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
    if (req.algo && !point_to_point(req.op) && *req.algo != prof.algo) continue;
    if (!prof.unavailable.empty()) {
      refused = prof.unavailable;
      continue;
    }
    const double link_us = prof.peak.busy_us * bytes;
    const double class_us = prof.peak.any ? cal_.latency_us[static_cast<size_t>(cluster_.link(prof.peak.edge).kind)] : 0;
    const double dci_us = prof.dci_latency_us > 0 ? dci_steps(req.op, prof.algo, g) * prof.dci_latency_us : 0;
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
        c.link_gbps = prof.peak.effective_gbps;
      }
      bool channel_bound = false;
      if (point_to_point(req.op)) {
        // NCCL's p2p is Simple over its own connections; it is not in the tuner's tables, so
        // charge one Simple ring step on the worst hop class, plus the per-operation network
        // overhead for every remote peer a rank posts to (alltoall: all ranks on other nodes).
        if (proto != NcclProto::simple) continue;
        const double remote_peers = req.op == CollectiveOp::alltoall ? g.size() - g.max_local() : (nodes > 1);
        c.nccl_latency_us = t.base_latency_us[static_cast<size_t>(NcclAlgo::ring)][2] +
                            t.hw_latency_us[static_cast<size_t>(hw_for(prof.worst))][static_cast<size_t>(NcclAlgo::ring)][2] +
                            remote_peers * nccl_net_overhead_us(t, p.comm.cpu);
        c.latency_us = c.nccl_latency_us + c.overhead_us + dci_us;
        c.link_us = link_us;
        c.transfer_us = link_us;
      } else {
        double nccl_lat = nccl_latency_us(t, p.comm, req.op, prof.algo, proto, bytes);
        if (nccl_lat < 0) continue;  // NCCL does not run this pair here
        double correction = nccl_tree_correction(t, req.op, prof.algo, proto, bytes);
        double bw_us = link_us / (protocol_factor(t, prof.algo, proto, nodes) * correction);
        // Small calls run on fewer channels, and the caps NCCL gives per channel (LL128, trees)
        // shrink with them; LL's cap is NCCL's total for the protocol.
        const double channels = nccl_channels(t, p.comm, prof.algo, proto, bytes);
        const bool per_channel_cap = (prof.algo == NcclAlgo::ring && proto == NcclProto::ll128) ||
                                     (prof.algo == NcclAlgo::tree && proto != NcclProto::ll);
        const double used = per_channel_cap ? channels / std::max(p.comm.n_channels, 1) : 1.0;
        const double cap_gbps = channel_cap_gbps(t, p.comm_uncapped, req.op, prof.algo, proto) * used;
        double cap_us = cap_gbps < 1e9 ? bytes / (1000.0 * cap_gbps * correction) : 0;
        channel_bound = cap_us > bw_us;
        c.link_us = bw_us;
        c.cap_us = cap_us;
        c.cap_gbps = cap_us > 0 ? cap_gbps * correction : 0;
        c.nccl_time_us = nccl_time_us(t, p.comm, req.op, prof.algo, proto, bytes);
        double transfer = std::max(bw_us, cap_us);
        if (prof.algo == NcclAlgo::ring && proto == NcclProto::simple) {
          // Simple forwards whole slices (LL and LL128 forward each line as it lands), so the
          // ring's pipeline fills one slice per rank before every link is busy. The slice shrinks
          // with the message: a chunk is at most chunk_steps buffer steps and at most the
          // channel's share of one rank.
          const double f = nccl_busbw_factor(req.op, g.size());
          const double step_bytes = static_cast<double>(t.buffer_bytes[2]) / t.ncclsteps;
          const double chunk = std::min(step_bytes * t.chunk_steps, bytes / channels / g.size());
          const double slice = chunk * t.slice_steps / t.chunk_steps;
          const double per_channel_hop = f * bytes / channels;
          if (per_channel_hop > 0) c.fill_us = (g.size() - 1) * transfer * slice / per_channel_hop;
          transfer += c.fill_us;
        }
        if (prof.algo == NcclAlgo::nvls || prof.algo == NcclAlgo::nvls_tree) {
          // Each of NVLS's channel x head lanes moves its chunks one at a time (all_reduce.h): a
          // chunk is reduced before it is stored back multicast, so the store direction starts
          // one chunk time late; NVLS tree adds a network hop per tree level, up and back down.
          // At most one transfer time when the call is under a chunk per lane.
          const double ops = nccl_nvls_ops(t, p.comm);
          const double chunk = static_cast<double>(nccl_nvls_chunk_bytes(t, p.comm, prof.algo, bytes));
          const int handoffs = prof.algo == NcclAlgo::nvls ? 1 : 1 + 2 * ceil_log2(nodes);
          c.fill_us = handoffs * transfer * std::min(1.0, ops * chunk / bytes);
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
  if (best.profile->peak.any) {
    const LinkLoad::Peak& pk = best.profile->peak;
    out.bottleneck.edge = pk.edge;
    out.bottleneck.link = cluster_.edge_name(pk.edge);
    out.bottleneck.kind = cluster_.link(pk.edge).kind;
    out.bottleneck.bytes = pk.bytes * bytes;
    out.bottleneck.bw_gbps = pk.effective_gbps;
  }
  for (const Scored& s : scored) out.candidates.push_back(s.c);
  return out;
}

const CommGroup& CollectiveModel::group() const { return prepared_->group; }

Result<CollectivePrediction> CollectiveModel::predict(const CollectiveRequest& req) {
  if (!(req.bytes > 0)) return Error{"the size must be > 0 bytes"};
  if (Result<bool> ok = prepare(req); !ok) return Error{ok.error()};
  return evaluate(req, req.bytes);
}

Result<std::vector<CollectivePrediction>> CollectiveModel::sweep(const CollectiveRequest& req, double min_bytes,
                                                                 double max_bytes) {
  if (!(min_bytes > 0) || max_bytes < min_bytes) return Error{"a sweep needs 0 < min <= max"};
  if (Result<bool> ok = prepare(req); !ok) return Error{ok.error()};
  std::vector<CollectivePrediction> out;
  for (double b = min_bytes; b <= max_bytes * (1 + 1e-12); b *= 2) {
    Result<CollectivePrediction> r = evaluate(req, b);
    if (!r) return Error{r.error()};
    out.push_back(std::move(*r));
  }
  return out;
}

}  // namespace topoplan

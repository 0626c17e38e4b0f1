// The collective cost model: one NCCL collective on a group of GPUs, predicted the way NCCL runs
// it. Each candidate algorithm is expanded into its transfers and routed over the cluster; its time
// is NCCL's latency for that (algorithm, protocol) plus the time the busiest link needs for its
// bytes at the bandwidth NCCL gets from it, bounded by what NCCL's channels can push (the tuning
// table's per-channel caps). `auto` takes the pair NCCL's tuner picks from its own estimates, as
// NCCL does; topoplan then times that pair on the links. docs/cost-model.md.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cost/calibration.h"
#include "cost/comm_group.h"
#include "cost/link_load.h"
#include "cost/nccl_tuning.h"

namespace topoplan {

struct CollectiveRequest {
  CollectiveOp op = CollectiveOp::all_reduce;
  double bytes = 0;                // nccl-tests' size
  std::vector<VertexId> gpus;      // rank order
  std::optional<NcclAlgo> algo;    // forced (NCCL_ALGO), else the tuner's choice
  std::optional<NcclProto> proto;  // forced (NCCL_PROTO)
};

struct CollectiveCandidate {
  std::string algorithm;  // "ring", "tree", "nvls", "nvls_tree", "pat"; "pairwise" / "p2p"
  NcclAlgo algo = NcclAlgo::ring;
  NcclProto proto = NcclProto::simple;
  double time_us = 0;
  double latency_us = 0;   // NCCL's latency, launch and propagation
  double dci_us = 0;       // the propagation part
  double transfer_us = 0;  // the busiest link's bytes at its effective bandwidth, or the channel cap
  // The terms (collective --why): latency = nccl_latency_us + overhead_us + dci_us; transfer =
  // max(link_us, cap_us, window_us) + fill_us.
  double nccl_latency_us = 0;  // NCCL's own for the pair (p2p: one ring step and per-peer costs)
  double overhead_us = 0;      // the calibration's launch and per-class latency
  double link_us = 0;          // the busiest link at its effective bandwidth, protocol factor applied
  double cap_us = 0;           // NCCL's per-channel cap; 0 where none applies
  double cap_GBps = 0;         // that cap's bus bandwidth
  double window_us = 0;        // a connection across a DCI link at its window per round trip; 0 without
  double fill_us = 0;          // pipeline fill: a Simple chain's, NVLS's chunk hand-offs
  double nccl_time_us = -1;    // NCCL's own estimate, what its tuner picks by (-1: p2p, not tuned)
  bool has_link = false;
  EdgeId link_edge = 0;                  // the busiest link
  double link_bytes = 0, link_GBps = 0;  // its bytes and effective bandwidth
  // Under hash or static routing, link_us were every connection split evenly over the equal-cost
  // paths (what hashing gives on average); 0 under adaptive routing, where that is link_us.
  double even_link_us = 0;
};

struct CollectivePrediction {
  CollectiveOp op = CollectiveOp::all_reduce;
  double bytes = 0;
  int ranks = 0, nodes = 0;
  int channels = 0;    // NCCL's communicator channels (ring graph after duplication)
  int nvls_heads = 0;  // channels of NCCL's NVLS graph, one head GPU each; 0 without NVLS
  std::string algorithm;
  NcclAlgo algo = NcclAlgo::ring;  // what the transfers were expanded with
  NcclProto proto = NcclProto::simple;
  double time_us = 0, latency_us = 0, transfer_us = 0;
  double dci_us = 0;  // of latency_us: propagation over DCI links on the critical path
  double algbw_GBps = 0, busbw_GBps = 0;
  bool channel_bound = false;  // the per-channel cap, not a link, set transfer_us
  // The pair is the one NCCL's tuner picks; false where it picks one topoplan cannot expand
  // (CollNet), and then the fastest of topoplan's is taken.
  bool tuner_pick = true;
  FabricRouting routing;  // the fabric's, which placed the bytes below
  struct Bottleneck {
    EdgeId edge = 0;
    std::string link;  // "h001/gpu0 -> h001/nvswitch"
    LinkKind kind = LinkKind::NVL;
    double bytes = 0;
    double bw_GBps = 0;  // effective, GB/s
  } bottleneck;          // as routed: under hash routing the worst link the hash made
  // Under hash or static routing, the busiest link were the bytes split evenly over the
  // equal-cost paths: the expected one beside the routed worst. Empty under adaptive routing.
  std::optional<Bottleneck> even_bottleneck;
  std::vector<CollectiveCandidate> candidates;  // every available pair, fastest first
};

// Holds what one group's predictions share: routes, the per-algorithm link profile (link loads
// scale with the size, so a sweep expands and routes once).
class CollectiveModel {
 public:
  // `share`: the part of each link the group gets (a shared fabric, cost/link_share.h); whole
  // links when null.
  CollectiveModel(const Cluster& cluster, const Router& router, const NcclTuning& tuning = nccl_tuning_default(),
                  const Calibration& calibration = calibration_default(), const LinkShare* share = nullptr);
  ~CollectiveModel();

  Result<CollectivePrediction> predict(const CollectiveRequest& request);
  // The same prediction where only what NCCL runs is wanted: the algorithm NCCL's tuner picks is
  // routed alone, the others only where topoplan cannot expand the pick, so `candidates` may
  // list the pick's protocols only. A planner predicts every new group shape it meets.
  Result<CollectivePrediction> predict_pick(const CollectiveRequest& request);
  // The busiest link's busy microseconds per byte of the last prediction's group running
  // `algo` alone (0 when it loads no link): what its time is read on.
  double busiest_us_per_byte(NcclAlgo algo) const;
  // Powers of two from min_bytes to max_bytes, inclusive, as nccl-tests -f 2 does.
  Result<std::vector<CollectivePrediction>> sweep(const CollectiveRequest& request, double min_bytes, double max_bytes);
  // The group of the last prediction, as NCCL sees it.
  const CommGroup& group() const;
  // Node facts to reuse and add to (comm_group_make), for the same cluster and router; it must
  // outlive the model.
  void share_nodes(CommNodeCache* nodes) { nodes_ = nodes; }

 private:
  struct Profile;
  struct Prepared;
  Result<void> prepare(const CollectiveRequest& request);
  // Routes one algorithm's transfers for the prepared group (once).
  Result<void> load(Profile& profile);
  Result<void> load_all();
  Profile* profile(NcclAlgo algo) const;  // the prepared group's, null for an op without it
  // Over the loaded profiles, or `only`.
  Result<CollectivePrediction> evaluate(const CollectiveRequest& request, double bytes,
                                        const Profile* only = nullptr) const;

  const Cluster& cluster_;
  const Router& router_;
  const NcclTuning& tuning_;
  const Calibration& cal_;
  LinkLoad load_;
  std::unique_ptr<LinkLoad> even_;  // hash or static routing: the same transfers split evenly
  std::unique_ptr<Prepared> prepared_;
  CommNodeCache* nodes_ = nullptr;
};

// The algorithm names topoplan prints: NCCL's for collectives, "pairwise" (alltoall), "p2p".
std::string collective_algorithm_name(CollectiveOp op, NcclAlgo algo);

}  // namespace topoplan

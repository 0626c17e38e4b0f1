// A group of GPUs as NCCL sees it when it builds a communicator: ranks in order, split into nodes
// (a host, or a whole NVLink domain such as an NVL72 rack, as NCCL's MNNVL does), the NICs each
// node's ranks reach, and the facts NCCL's tuner reads (compute capability, CPU, path types).
#pragma once

#include <memory>
#include <vector>

#include <boost/container/small_vector.hpp>
#include <boost/iterator/indirect_iterator.hpp>

#include "cost/nccl_tuning.h"
#include "topology/cluster.h"
#include "topology/gpu_models.h"
#include "topology/routing.h"

namespace topoplan {

// A node's lists, held in place up to N: most nodes are one GPU of a data-parallel group, and a
// heap block per list was half the allocations of a 100,000-GPU score.
template <typename T, size_t N = 1>
using NodeList = boost::container::small_vector<T, N>;

struct CommNode {
  NodeList<VertexId> gpus;      // the group's GPUs on this node, in rank order
  NodeList<VertexId> gpu_nics;  // each GPU's rail-aligned NIC, parallel to gpus
  NodeList<VertexId> nics;      // the distinct ones, in first-seen order
  // Per NIC: the local GPUs (indices into gpus) a ring channel on it enters at (the NIC's own
  // GPU) and leaves from (another GPU with the best path to the same NIC, as NCCL's search
  // ends the node's chain next to the NIC it started from).
  NodeList<size_t> entry, exit;
  VertexId nvswitch = kNoVertex;  // where all its GPUs meet over NVLink, if they do
  // Where its GPUs bond point to point (an NVLink mesh, cost/mesh_rings.h): the rings NCCL's
  // search packs on a node alone, and per NIC the chain a channel crosses the node by, from its
  // entry to its exit GPU (indices into gpus). Both empty on other nodes, or where no NVLink ring
  // or chain reaches every GPU.
  std::vector<std::vector<size_t>> mesh_rings, mesh_chains;
  // The host's NIC on each rail when all the node's GPUs are in one host with railed NICs (PXN
  // can send through any of them), else empty; and each GPU's rail.
  NodeList<VertexId, 8> rail_nics;
  NodeList<int> gpu_rails;
  // The GPUs (indices into gpus) that head NVLS channels, at most kNcclMaxNvlsArity: on a group
  // of one node its GPUs in device order (channel c's head is GPU c); across nodes the GPU behind
  // each NIC, one head per NIC and GPU (search.cc ncclTopoSearchRecNet).
  NodeList<size_t> nvls_heads;
  int site = -1;  // of its first GPU

  bool operator==(const CommNode&) const = default;
};

// A group's nodes, immutable and shared with the cache that found them: a planner makes a group
// for every move, and copying a node is a dozen allocations where sharing it is a pointer. Nodes
// a cache keeps for its whole life are held by address alone: a data-parallel group has a node
// per host, and counting references to each was a tenth of a large plan's moves.
class CommNodes {
 public:
  const CommNode& operator[](size_t i) const { return *nodes_[i]; }
  size_t size() const { return nodes_.size(); }
  bool empty() const { return nodes_.empty(); }
  auto begin() const { return boost::make_indirect_iterator(nodes_.begin()); }
  auto end() const { return boost::make_indirect_iterator(nodes_.end()); }
  // A node the group keeps alive.
  void push_back(std::shared_ptr<const CommNode> node) {
    nodes_.push_back(node.get());
    held_.push_back(std::move(node));
  }
  // A node that outlives the group (CommNodeCache's one-GPU nodes).
  void push_back_kept(const CommNode* node) { nodes_.push_back(node); }
  void reserve(size_t n) { nodes_.reserve(n); }
  // Node i as a copy of its own, for a caller that changes it (tests).
  CommNode& own(size_t i);
  bool operator==(const CommNodes& other) const;

 private:
  std::vector<const CommNode*> nodes_;
  std::vector<std::shared_ptr<const CommNode>> held_;
};

struct CommGroup {
  std::vector<VertexId> ranks;    // GPU of each rank
  std::vector<int> node_of_rank;  // index into nodes
  CommNodes nodes;                // in order of their first rank
  int compute_capability = 0;     // minimum over the ranks
  NcclCpu cpu = NcclCpu::other;
  bool nvswitch = false;             // every node's GPUs meet in one NVSwitch
  int mesh_rings = 0;                // NVLink rings on every node's mesh (the fewest); 0 if not all meshes
  PathClass intra = PathClass::LOC;  // worst GPU-to-GPU class inside a node
  PathClass inter = PathClass::LOC;  // worst GPU-to-NIC class, for multi-node groups
  double nvlink_GBps = 0;            // per GPU into the NVSwitch, line rate (min over ranks)

  int size() const { return static_cast<int>(ranks.size()); }
  int min_local() const;
  int max_local() const;
  // NVLS heads every node can give: NCCL connects the nodes' heads by index, so the fewest count.
  int nvls_heads() const;

  bool operator==(const CommGroup&) const = default;
};

NcclCpu cpu_vendor(const std::string& model);

// What comm_group_make works out per node, kept by the node's GPUs in rank order, and each GPU's
// compute capability: the groups a planner scores on one cluster and router repeat the same nodes
// (a data-parallel group's GPU per host, a tensor-parallel group's host) over and over. Groups
// made with a cache must not outlive it: they hold its one-GPU nodes by address.
class CommNodeCache {
 public:
  // Nodes of several GPUs are dropped past this many (a large cluster's groups never repeat all);
  // one-GPU nodes are kept by their GPU.
  static constexpr size_t kMaxNodes = size_t{1} << 18;
  CommNodeCache(const Cluster& cluster, const Router& router);
  ~CommNodeCache();
  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// The GPUs must be distinct GPU vertices; every model must be known (errors say which device).
// `cache`, when given, must be for the same cluster and router.
Result<CommGroup> comm_group_make(const Cluster& cluster, const Router& router, const std::vector<VertexId>& gpus,
                                  CommNodeCache* cache = nullptr);

// The communicator NCCL's tuner would see: channel counts from a restatement of its search
// (search.cc: the per-channel speeds it tries, bounded by NVLink and NIC bandwidth, then
// connect.cc's duplication), the NVLS graph (heads and their speeds), NVLS and LL128 eligibility.
NcclComm comm_group_nccl(const NcclTuning& t, const Cluster& cluster, const CommGroup& g);

}  // namespace topoplan

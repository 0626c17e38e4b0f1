#include "cost/transfers.h"

#include <algorithm>
#include <string>

namespace topoplan {
namespace {

using Transfers = std::vector<Transfer>;

// The local GPU a ring or tree channel group enters a node at: the one whose own NIC is the
// group's NIC (NCCL binds each channel to a NIC and starts the node's chain next to it).
size_t entry_gpu(const CommNode& node, int group) {
  return node.nics.empty() ? 0 : node.entry[static_cast<size_t>(group) % node.nics.size()];
}

// The node's chain for a ring channel group: the entry GPU, the others in cyclic order, and last
// the GPU that leaves through the group's NIC.
std::vector<VertexId> ring_chain(const CommNode& node, int group) {
  const size_t p = node.gpus.size();
  if (node.nics.empty()) return {node.gpus.begin(), node.gpus.end()};
  const size_t k = static_cast<size_t>(group) % node.nics.size();
  if (!node.mesh_chains.empty()) {  // over bonded pairs only
    std::vector<VertexId> chain;
    for (size_t i : node.mesh_chains[k]) chain.push_back(node.gpus[i]);
    return chain;
  }
  const size_t e = node.entry[k], x = node.exit[k];
  std::vector<VertexId> chain{node.gpus[e]};
  for (size_t t = 1; t < p; ++t)
    if (size_t i = (e + t) % p; i != x) chain.push_back(node.gpus[i]);
  if (x != e) chain.push_back(node.gpus[x]);
  return chain;
}

// Channel groups: one per NIC of the best-connected node, as NCCL's search gives each NIC its
// channels and rotates through them.
int channel_groups(const CommGroup& g) {
  size_t m = 1;
  for (const CommNode& n : g.nodes) m = std::max(m, n.nics.size());
  return static_cast<int>(m);
}

// Rings: inside a node a chain over its GPUs; across nodes, channel group j leaves every node
// through its j-th NIC and enters the next node, in rank order, on the same rail.
Transfers ring(const CommGroup& g, CollectiveOp op, double bytes, int channels) {
  Transfers out;
  const bool chain = op == CollectiveOp::broadcast || op == CollectiveOp::reduce;  // root at rank 0, not closed
  const double per_hop = nccl_busbw_factor(op, g.size()) * bytes;
  const size_t nodes = g.nodes.size();
  if (nodes == 1 && !g.nodes[0].mesh_rings.empty()) {
    // A mesh: each ring NCCL packs carries its share over its own bonded pairs.
    const CommNode& node = g.nodes[0];
    const double share = per_hop / static_cast<double>(node.mesh_rings.size());
    for (const std::vector<size_t>& r : node.mesh_rings)
      for (size_t i = 0; i + (chain ? 1 : 0) < r.size(); ++i)
        out.push_back({node.gpus[r[i]], node.gpus[r[(i + 1) % r.size()]], share});
    return out;
  }
  if (nodes == 1) {
    const NodeList<VertexId>& l = g.nodes[0].gpus;
    for (size_t i = 0; i + (chain ? 1 : 0) < l.size(); ++i) out.push_back({l[i], l[(i + 1) % l.size()], per_hop});
    return out;
  }
  const int groups = channel_groups(g);
  const double share = per_hop / groups;
  const auto per_group = static_cast<uint32_t>(std::max(1, channels / groups));
  out.reserve(static_cast<size_t>(groups) * g.size());
  std::vector<VertexId> l;
  for (int j = 0; j < groups; ++j)
    for (size_t k = 0; k < nodes; ++k) {
      // A one-GPU node (a data-parallel group over hosts) has no chain to build.
      const CommNode& node = g.nodes[k];
      if (node.gpus.size() == 1) {
        l.assign(1, node.gpus[0]);
      } else {
        l = ring_chain(node, j);
      }
      for (size_t t = 0; t + 1 < l.size(); ++t) out.push_back({l[t], l[t + 1], share});
      if (chain && k + 1 == nodes) continue;
      const CommNode& next = g.nodes[(k + 1) % nodes];
      out.push_back({l.back(), next.gpus[entry_gpu(next, j)], share, FlowMode::copy, /*pxn=*/true,
                     static_cast<uint32_t>(j) * per_group, per_group});
    }
  return out;
}

// A tree channel group's chain through a node (indices into gpus), from its entry GPU: over
// bonded pairs on a mesh, else in cyclic rank order.
std::vector<size_t> tree_chain(const CommNode& node, int group) {
  if (!node.mesh_chains.empty()) return node.mesh_chains[static_cast<size_t>(group) % node.mesh_chains.size()];
  if (!node.mesh_rings.empty()) return node.mesh_rings[0];
  const size_t p = node.gpus.size(), e = entry_gpu(node, group);
  std::vector<size_t> chain;
  for (size_t t = 0; t < p; ++t) chain.push_back((e + t) % p);
  return chain;
}

// One tree (parents by node position) carrying `bytes`: reduce up, broadcast down, between the
// entry GPUs of the channel group over `connections` connections from `channel` on, and along
// each node's chain both ways.
void tree_into(Transfers& out, const CommGroup& g, const std::vector<int>& parent, int group, double bytes,
               uint32_t channel, uint32_t connections) {
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const NodeList<VertexId>& l = g.nodes[k].gpus;
    const size_t e = entry_gpu(g.nodes[k], group);
    const std::vector<size_t> chain = tree_chain(g.nodes[k], group);
    for (size_t t = 0; t + 1 < chain.size(); ++t) {
      VertexId a = l[chain[t]], b = l[chain[t + 1]];
      out.push_back({b, a, bytes});  // up the chain toward the entry GPU
      out.push_back({a, b, bytes});  // and back down
    }
    if (parent[k] < 0) continue;
    const CommNode& up = g.nodes[static_cast<size_t>(parent[k])];
    VertexId child_head = l[e], parent_head = up.gpus[entry_gpu(up, group)];
    out.push_back({child_head, parent_head, bytes, FlowMode::copy, false, channel, connections});
    out.push_back({parent_head, child_head, bytes, FlowMode::copy, false, channel, connections});
  }
}

Transfers tree(const CommGroup& g, double bytes, int channels) {
  Transfers out;
  const int n = static_cast<int>(g.nodes.size());
  const std::vector<int> t0 = nccl_btree_parents(n), t1 = nccl_dtree_parents(n);
  // One node: a single chain in rank order; across nodes one chain per NIC.
  const int groups = n == 1 ? 1 : channel_groups(g);
  // Each channel group splits its share, and its channels, between the two trees.
  const auto per_group = static_cast<uint32_t>(std::max(1, channels / groups));
  const uint32_t per_tree = std::max<uint32_t>(1, per_group / 2);
  for (int j = 0; j < groups; ++j) {
    const uint32_t first = static_cast<uint32_t>(j) * per_group;
    tree_into(out, g, t0, j, bytes / groups / 2, first, per_tree);
    tree_into(out, g, t1, j, bytes / groups / 2, first + per_tree, per_tree);
  }
  return out;
}

// NVLS all_reduce (src/device/all_reduce.h, RunWorkColl NVLS): the buffer is cut into one slice
// per head; the NVSwitch reads every GPU's copy of a slice and hands the sum to its head
// (multimem.ld_reduce), which stores it back multicast to all. So every GPU link carries the
// buffer each way, and a head's link also its own slice each way: bytes * (1 + 1/H) on heads,
// bytes on the others (the same for every GPU when all of them head, up to 32). all_gather
// stores 1/p multicast and receives all; reduce_scatter the reverse.
void nvls_into(Transfers& out, const CommNode& node, CollectiveOp op, double bytes, size_t heads) {
  const double p = static_cast<double>(node.gpus.size());
  heads = std::min(heads, node.nvls_heads.size());
  std::vector<bool> head(node.gpus.size(), false);
  for (size_t k = 0; k < heads; ++k) head[node.nvls_heads[k]] = true;
  for (size_t i = 0; i < node.gpus.size(); ++i) {
    double up = bytes * (1 + (head[i] ? 1 / static_cast<double>(heads) : 0)), down = up;
    if (op == CollectiveOp::all_gather) up = bytes / p, down = bytes;
    if (op == CollectiveOp::reduce_scatter) up = bytes, down = bytes / p;
    out.push_back({node.gpus[i], node.nvswitch, up, FlowMode::multimem});
    out.push_back({node.nvswitch, node.gpus[i], down, FlowMode::multimem});
  }
}

Transfers pat(const CommGroup& g, CollectiveOp op, double bytes, int channels) {
  // Parallel aggregated trees: log2(n) rounds, round k exchanging with the rank 2^k away, the data
  // doubling each round (all_gather; reduce_scatter runs the same rounds reversed).
  Transfers out;
  const int n = g.size();
  const auto connections = static_cast<uint32_t>(std::max(1, channels));
  for (int d = 1; d < n; d *= 2) {
    const double chunk = std::min(d, n - d) * bytes / n;
    for (int r = 0; r < n; ++r) {
      int peer = (r + d) % n;
      if (op == CollectiveOp::reduce_scatter)
        out.push_back({g.ranks[peer], g.ranks[r], chunk, FlowMode::copy, true, 0, connections});
      else
        out.push_back({g.ranks[r], g.ranks[peer], chunk, FlowMode::copy, true, 0, connections});
    }
  }
  return out;
}

// Pairwise exchange: every rank sends bytes/n to every other. Across nodes NCCL's PXN sends
// through the local NIC on the destination's rail, so the fabric only sees same-rail NIC pairs;
// adding those up per (node, node, rail) keeps large groups cheap to route. Each pair of ranks
// keeps its own connections, p2p_per_peer of them.
Transfers alltoall(const CommGroup& g, double bytes, int p2p_per_peer) {
  Transfers out;
  const int n = g.size();
  const double each = bytes / n;
  const auto per_peer = static_cast<uint32_t>(std::max(1, p2p_per_peer));
  bool railed = true;
  for (const CommNode& node : g.nodes) railed = railed && !node.rail_nics.empty();
  for (size_t a = 0; a < g.nodes.size(); ++a) {
    const CommNode& na = g.nodes[a];
    for (VertexId x : na.gpus)
      for (VertexId y : na.gpus)
        if (x != y) out.push_back({x, y, each});
    if (railed) continue;
    for (size_t b = 0; b < g.nodes.size(); ++b)
      if (a != b)
        for (VertexId x : na.gpus)
          for (VertexId y : g.nodes[b].gpus) out.push_back({x, y, each, FlowMode::copy, true, 0, per_peer});
  }
  if (!railed) return out;
  size_t rails = 0;
  for (const CommNode& node : g.nodes) rails = std::max(rails, node.rail_nics.size());
  // GPUs per rail, per node and in all.
  std::vector<std::vector<double>> count(g.nodes.size(), std::vector<double>(rails, 0));
  std::vector<double> total(rails, 0);
  for (size_t k = 0; k < g.nodes.size(); ++k)
    for (int r : g.nodes[k].gpu_rails) {
      count[k][static_cast<size_t>(r)] += 1;
      total[static_cast<size_t>(r)] += 1;
    }
  for (size_t a = 0; a < g.nodes.size(); ++a) {
    const CommNode& na = g.nodes[a];
    const double pa = static_cast<double>(na.gpus.size());
    for (size_t r = 0; r < rails; ++r) {
      const double remote = total[r] - count[a][r];
      if (remote == 0) continue;
      // Each local GPU to the rail's NIC (its own, or through a peer GPU over NVLink).
      for (VertexId x : na.gpus) out.push_back({x, na.rail_nics[r], each * remote});
      for (size_t b = 0; b < g.nodes.size(); ++b)
        if (b != a && count[b][r] > 0)
          out.push_back({na.rail_nics[r], g.nodes[b].rail_nics[r], each * pa * count[b][r], FlowMode::copy, false, 0,
                         per_peer * static_cast<uint32_t>(pa * count[b][r])});
    }
    // And from each GPU's own NIC to it, from every GPU of the other nodes.
    const double senders = n - pa;
    for (size_t i = 0; i < na.gpus.size(); ++i)
      out.push_back({na.rail_nics[static_cast<size_t>(na.gpu_rails[i])], na.gpus[i], each * senders});
  }
  return out;
}

// NVLS tree (all_reduce.h RunWorkColl NVLS_TREE): NVLS inside each node, and for each head's
// slice a double binary tree across the nodes between the heads of the same index, through each
// head's own NIC (search.cc ncclTopoSearchRecNet binds channel c to a NIC and its GPU).
Transfers nvls_tree(const CommGroup& g, double bytes) {
  Transfers out;
  const size_t heads = static_cast<size_t>(g.nvls_heads());  // >= 1: collective_transfers checks
  for (const CommNode& node : g.nodes) nvls_into(out, node, CollectiveOp::all_reduce, bytes, heads);
  const int n = static_cast<int>(g.nodes.size());
  const std::vector<int> t0 = nccl_btree_parents(n), t1 = nccl_dtree_parents(n);
  const double slice = bytes / static_cast<double>(heads) / 2;
  for (size_t i = 0; i < heads; ++i)
    for (const std::vector<int>* parent : {&t0, &t1})
      for (int k = 0; k < n; ++k) {
        int up = (*parent)[static_cast<size_t>(k)];
        if (up < 0) continue;
        const CommNode &child = g.nodes[static_cast<size_t>(k)], &top = g.nodes[static_cast<size_t>(up)];
        VertexId a = child.gpus[child.nvls_heads[i]], b = top.gpus[top.nvls_heads[i]];
        // A connection per head and tree: the trees' NICs are the heads' own.
        const uint32_t channel = parent == &t0 ? 0 : 1;
        out.push_back({a, b, slice, FlowMode::copy, false, channel});
        out.push_back({b, a, slice, FlowMode::copy, false, channel});
      }
  return out;
}

std::string why_not(NcclAlgo algo, const std::string& reason) {
  return "algorithm " + std::string(to_string(algo)) + " cannot run here: " + reason;
}

}  // namespace

std::vector<Transfer> ring_of_sends(const std::vector<VertexId>& ranks, double bytes, int p2p_per_peer) {
  std::vector<Transfer> out;
  out.reserve(ranks.size());  // a hundred thousand pipeline pairs at 100,000 GPUs: one allocation each
  const auto connections = static_cast<uint32_t>(std::max(1, p2p_per_peer));
  for (size_t r = 0; r < ranks.size(); ++r)
    out.push_back({ranks[r], ranks[(r + 1) % ranks.size()], bytes, FlowMode::copy, true, 0, connections});
  return out;
}

Result<std::vector<Transfer>> collective_transfers(const CommGroup& g, CollectiveOp op, NcclAlgo algo, double bytes,
                                                   Connections connections) {
  using A = NcclAlgo;
  if (g.size() < 2) return Error{"a collective needs at least 2 GPUs, the group has " + std::to_string(g.size())};
  if (op == CollectiveOp::alltoall) return alltoall(g, bytes, connections.p2p_per_peer);
  if (op == CollectiveOp::sendrecv) return ring_of_sends(g.ranks, bytes, connections.p2p_per_peer);
  const bool ag_rs = op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter;
  const bool one_node = g.nodes.size() == 1;
  bool uniform = true;
  for (const CommNode& n : g.nodes) uniform = uniform && n.gpus.size() == g.nodes[0].gpus.size();
  switch (algo) {
    case A::ring:
      return ring(g, op, bytes, connections.channels);
    case A::tree:
      if (op != CollectiveOp::all_reduce) return Error{why_not(algo, "NCCL's trees only run all_reduce")};
      return tree(g, bytes, connections.channels);
    case A::nvls:
      if (!g.nvswitch) return Error{why_not(algo, "NVLS needs every GPU on one NVSwitch")};
      if (!one_node) return Error{why_not(algo, "across nodes NVLS runs as nvls_tree")};
      if (op != CollectiveOp::all_reduce && !ag_rs)
        return Error{why_not(algo, "NVLS runs all_reduce, all_gather and reduce_scatter")};
      {
        Transfers out;
        nvls_into(out, g.nodes[0], op, bytes, g.nodes[0].nvls_heads.size());
        return out;
      }
    case A::nvls_tree:
      if (!g.nvswitch) return Error{why_not(algo, "NVLS needs every node's GPUs on one NVSwitch")};
      if (one_node) return Error{why_not(algo, "NVLS tree needs more than one node")};
      if (op != CollectiveOp::all_reduce) return Error{why_not(algo, "NVLS tree only runs all_reduce")};
      if (!uniform) return Error{why_not(algo, "NVLS tree needs the same number of GPUs on every node")};
      if (g.nvls_heads() < 1) return Error{why_not(algo, "NVLS tree needs a NIC next to a GPU of every node")};
      return nvls_tree(g, bytes);
    case A::pat:
      if (!ag_rs) return Error{why_not(algo, "PAT runs all_gather and reduce_scatter")};
      if (g.max_local() != 1) return Error{why_not(algo, "PAT needs one GPU per node")};
      return pat(g, op, bytes, connections.channels);
    case A::collnet_direct:
    case A::collnet_chain:
      return Error{why_not(algo, "CollNet needs a SHARP plugin, which topoplan does not model")};
  }
  return Error{why_not(algo, "unknown")};
}

std::vector<int> nccl_btree_parents(int n) {
  std::vector<int> parent(static_cast<size_t>(std::max(n, 0)), -1);
  for (int r = 1; r < n; ++r) {
    // Clear the lowest set bit and set the next one up; past the end, just clear it.
    int bit = r & -r;
    int up = (r ^ bit) | (bit << 1);
    if (up >= n) up = r ^ bit;
    parent[static_cast<size_t>(r)] = up;
  }
  return parent;
}

std::vector<int> nccl_dtree_parents(int n) {
  std::vector<int> base = nccl_btree_parents(n), parent(base.size(), -1);
  // Position r sits at position map(r) of tree 0; its parent is the image of that one's parent.
  auto map = [n](int r) { return n % 2 == 1 ? (r - 1 + n) % n : n - 1 - r; };
  auto unmap = [n](int q) { return n % 2 == 1 ? (q + 1) % n : n - 1 - q; };
  for (int r = 0; r < n; ++r) {
    int q = base[static_cast<size_t>(map(r))];
    parent[static_cast<size_t>(r)] = q < 0 ? -1 : unmap(q);
  }
  return parent;
}

}  // namespace topoplan

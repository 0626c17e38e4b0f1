// A collective as the point-to-point transfers NCCL's algorithm makes (src, dst, bytes), so that
// they can be routed over the cluster and every link's bytes per direction known. One group's
// transfers are what `collective` times; many groups' transfers added together are what a job's
// concurrent link load is made of.
#pragma once

#include <vector>

#include "cost/comm_group.h"

namespace topoplan {

// Copies move data GPU to GPU (rings, trees, send/recv); multimem is NVLS, where the NVSwitch
// reduces or replicates and the transfer ends at the switch.
enum class FlowMode : uint8_t { copy, multimem };

struct Transfer {
  VertexId src = kNoVertex, dst = kNoVertex;  // GPUs or NICs; or a GPU and its NVSwitch (multimem)
  double bytes = 0;
  FlowMode mode = FlowMode::copy;
  bool pxn = false;  // leave the node through the NIC on dst's rail, as NCCL's PXN does for p2p
  // The NCCL connections that carry the bytes, equal parts each, numbered channel ..
  // channel + connections - 1 among those between the same two NICs: under hash routing each is
  // a flow of its own (one queue pair: NCCL_IB_QPS_PER_CONNECTION defaults to 1, v2.25.1-1
  // net_ib.cc:1019).
  uint32_t channel = 0, connections = 1;
};

// How many connections join two ranks across the network: a ring or tree hop has one per channel
// (comm->nChannels, split over the channel groups), a point-to-point peer p2p_per_peer (NCCL gives
// each remote peer 2 channels per NIC, paths.cc ncclTopoGetNchannels).
struct Connections {
  int channels = 1;
  int p2p_per_peer = 1;
};

// The transfers of one call of `op` over `bytes` (nccl-tests' size: the whole buffer for
// all_gather / reduce_scatter, the per-rank send buffer for alltoall) with algorithm `algo`.
// alltoall is always a pairwise exchange and sendrecv a ring of sends (rank r to r+1), whatever
// `algo` says. Errors for an algorithm the group cannot run (NVLS without an NVSwitch, PAT with
// several GPUs per node, tree for anything but all_reduce).
Result<std::vector<Transfer>> collective_transfers(const CommGroup& g, CollectiveOp op, NcclAlgo algo, double bytes,
                                                   Connections connections);

// sendrecv's pattern on its own, for callers with many small groups that need no CommGroup: rank
// r sends `bytes` to rank r + 1 (the last to the first), leaving through the NIC on the
// destination's rail (PXN), over `p2p_per_peer` connections.
std::vector<Transfer> ring_of_sends(const std::vector<VertexId>& ranks, double bytes, int p2p_per_peer);

// NCCL's double binary tree over n nodes (src/graph/trees.cc, restated): the parent of each
// position in tree 0 and tree 1, -1 at the roots. Tree 1 mirrors tree 0 for even n, shifts it by
// one for odd n, so that no node is an inner node of both.
std::vector<int> nccl_btree_parents(int n);
std::vector<int> nccl_dtree_parents(int n);

}  // namespace topoplan

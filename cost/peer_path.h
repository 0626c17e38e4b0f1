// `topo path`: the route between two GPUs and, under hash or static routing, the path each of the
// connections a send between them opens takes (NCCL gives a remote peer
// p2p_net_channels_per_peer of them), so a user sees which switch link hashing piles them on.
#pragma once

#include <vector>

#include "base/error.h"
#include "topology/routing.h"

namespace topoplan {

struct PeerPath {
  Route route;                     // the flow split evenly over its equal-cost paths
  std::vector<Route> connections;  // empty under adaptive routing and inside a host
  // The switch-to-switch link the most of the bytes cross, and that part (each connection 1/n);
  // beside it the most any such link gets split evenly.
  EdgeId busiest = 0;
  double share = 0, even_share = 0;
};

Result<PeerPath> peer_path(const Router& router, VertexId a, VertexId b, NicPolicy nic);

// The route, the routing and, where NCCL's connections are placed by the fabric, each one's chain
// of switches and the busiest switch link; `all` lists every hop of every equal-cost path.
std::string peer_path_text(const Cluster& cluster, const PeerPath& path, bool all);

}  // namespace topoplan

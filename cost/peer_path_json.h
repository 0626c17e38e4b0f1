// `topo path --json`: the route with every hop, the routing and NCCL's connections
// (cost/peer_path.h).
#pragma once

#include <nlohmann/json.hpp>

#include "cost/peer_path.h"

namespace topoplan {

nlohmann::json peer_path_json(const Cluster& cluster, const PeerPath& path);

}  // namespace topoplan

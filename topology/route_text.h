// A route as text for `topo path`: the hops in path order, or, across many equal-cost paths, each
// stage of them once ("spine[0-31] -> core[0-1567]: 1568 links") so that ten thousand ECMP hops
// read as five lines.
#pragma once

#include <string>

#include "topology/routing.h"

namespace topoplan {

// Every hop on its own line when `all` or when no stage fans out; else one line per stage.
std::string route_text(const Cluster& cluster, const Route& route, bool all);

}  // namespace topoplan

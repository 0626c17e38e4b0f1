// What-if links: cables or NICs that run slower than the cluster was built with (a NIC negotiated
// at 200G, a bundle that lost ports, a DCI span on a backup path), for replan --degraded.
#pragma once

#include <string>
#include <vector>

#include "topology/cluster.h"

namespace topoplan {

struct Degraded {
  Cluster cluster;                 // with the new rates
  std::vector<std::string> names;  // as given, "h005/nic0=200Gbps"
  std::vector<int> hosts;          // hosts whose own NIC cables run slower, in order of first mention
};

// Each entry NAME=RATE: NAME a cable as --exclude names it ("leaf0<->spine3", both directions and
// every parallel port of it) or a NIC (its cables to the fabric); RATE per port, below the port's
// own ("200Gbps", "25GB/s"). Errors name the entry: an unknown name, two devices not linked, a rate
// that is not one or not lower.
Result<Degraded> cluster_degraded(const Cluster& cluster, const std::vector<std::string>& entries);

}  // namespace topoplan

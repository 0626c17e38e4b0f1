// The allocation flags plan and advise share: --nodes (the hosts offered) and --exclude (what is
// down), read once against the cluster.
#pragma once

#include <string>
#include <vector>

#include "topology/down.h"

namespace topoplan::cli {

// --nodes: a Slurm hostlist, or @FILE with one host per line; host indices in the order given.
Result<std::vector<int>> nodes_flag(const Cluster& cluster, const std::string& nodes);
// --exclude: names comma-separated, or @FILE.
Result<DownSet> exclude_flag(const Cluster& cluster, const std::string& exclude);

}  // namespace topoplan::cli

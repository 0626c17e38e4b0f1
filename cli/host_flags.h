// The allocation flags plan and advise share: --nodes (the hosts offered) and --exclude (what is
// down), read once against the cluster.
#pragma once

#include <string>
#include <vector>

#include "topology/down.h"

namespace topoplan::cli {

// A host list flag (--nodes, --free, --failed ...): a Slurm hostlist, or @FILE with one host per
// line; host indices in the order given. Errors start with `flag`.
Result<std::vector<int>> nodes_flag(const Cluster& cluster, const std::string& value, const std::string& flag);
// --exclude: names comma-separated, or @FILE.
Result<DownSet> exclude_flag(const Cluster& cluster, const std::string& exclude);

}  // namespace topoplan::cli

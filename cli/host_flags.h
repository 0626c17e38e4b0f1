// The allocation flags plan and advise share: --nodes (the hosts offered), --exclude (what is
// down) and --running (the jobs already there), read once against the cluster.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "planner/running_jobs.h"
#include "topology/down.h"

namespace topoplan::cli {

// A host list flag (--nodes, --free, --failed ...): a Slurm hostlist, or @FILE with one host per
// line; host indices in the order given. Errors start with `flag`.
Result<std::vector<int>> nodes_flag(const Cluster& cluster, const std::string& value, const std::string& flag);
// --exclude: names comma-separated, or @FILE.
Result<DownSet> exclude_flag(const Cluster& cluster, const std::string& exclude);
// --running FILE: the running jobs, none when `path` is empty; what their plans exclude is added
// to `down`.
Result<std::optional<RunningJobs>> running_flag(const Cluster& cluster, const std::string& path, DownSet& down);

}  // namespace topoplan::cli

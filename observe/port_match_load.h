// The counter files of `topoplan observe` read into rates and matched to the cluster's ports: what
// observe_job takes, from the paths the user gives.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "observe/observe_job.h"

namespace topoplan {

// `interval_s`: the time between two samples whose files carry none; `port_map`: a CSV of counter
// keys to the cluster's ports, "" for none. Errors are the files' and port_match's.
Result<PortMatch> port_match_load(const Cluster& cluster, const std::vector<std::string>& counter_files,
                                  std::optional<double> interval_s, const std::string& port_map);

}  // namespace topoplan

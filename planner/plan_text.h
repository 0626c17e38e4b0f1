// A plan as `topoplan plan` prints it: the step against the input order's, the hosts, the
// baselines and order strings compared, where the exposed time goes, the search and the findings.
#pragma once

#include <string>
#include <vector>

#include "planner/plan.h"

namespace topoplan {

// `cluster` as given on the command line; `written`: the files written, listed last.
std::string plan_text(const Cluster& cluster, const std::string& cluster_arg, const Plan& plan,
                      const std::vector<std::string>& written);

}  // namespace topoplan

// The order strings worth trying for a job: every permutation of Megatron's five axes that
// initialize_model_parallel accepts for its sizes, one per distinct placement of its groups.
// Orders that differ only in where axes of size one sit (or otherwise give the same groups for
// every group the job's traffic uses) are one candidate, named by the order nearest Megatron's
// default (fewest pairs of axes swapped).
#pragma once

#include <string>
#include <vector>

#include "planner/job.h"

namespace topoplan {

// `tokens`: the group tokens the job's traffic uses ("tp", "dp-cp", "expert.ep" ...). The job's
// own order comes first; the rest in lexicographic order of their axes.
Result<std::vector<std::string>> orders_distinct(const Job& job, const std::vector<std::string>& tokens);

}  // namespace topoplan

// A scored job's load as the drawing colours it (topology/formats/dot.h): what `score --dot`
// writes, and what `explain --dot` marks its groups on.
#pragma once

#include <string>

#include "planner/score.h"
#include "topology/formats/dot.h"

namespace topoplan {

// The job's link utilization per step.
DotLoad dot_load_of(const Cluster& cluster, const JobScore& score, const std::string& title);

}  // namespace topoplan

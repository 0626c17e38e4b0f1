// The drawing `observe --dot` writes: the links coloured by observed / predicted instead of by the
// job's load, so a link the model gets wrong stands out whatever its traffic.
#pragma once

#include <vector>

#include "planner/score.h"
#include "topology/formats/dot.h"

namespace topoplan {

// `ratios`: observed_ratios of the job's observation (observe/observe_job.h).
DotLoad observed_dot_load(const JobScore& score, const std::vector<double>& ratios);

}  // namespace topoplan

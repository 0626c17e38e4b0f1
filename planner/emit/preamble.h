// The '#' lines every format begins with where it allows comments: which job, cluster, layout and
// order string the file was written for, so it can be traced back and reproduced.
// Internal to planner/emit/.
#pragma once

#include <string>
#include <string_view>

#include "planner/emit/placement.h"

namespace topoplan {

std::string emit_preamble(std::string_view format, const EmitInput& in, const RankPlacement& placement);

}  // namespace topoplan

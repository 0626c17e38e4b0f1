// A review as `topoplan review` prints it: the verdict, this layout beside the planner's best
// (exposed time by kind, step, MFU), the layout's findings and the best's hosts.
#pragma once

#include <string>

#include "planner/review.h"

namespace topoplan {

// `order`: the order string of the layout under review.
std::string review_text(const Cluster& cluster, const std::string& order, const Review& review);

}  // namespace topoplan

// A review as JSON, what `topoplan review --json` prints: the verdict and its reasons, the limits,
// the layout's score and the planner's best as a plan file.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "planner/review.h"

namespace topoplan {

// `cluster_arg` as given; `options` and `down` as the review scored, for the best's plan document.
nlohmann::json review_to_json(const Cluster& cluster, const Router& router, const std::string& cluster_arg,
                              const std::string& order, const Review& review, const ReviewLimits& limits,
                              const ScoreOptions& options, const DownSet& down);

}  // namespace topoplan

// A score as JSON, the same content as `topoplan score` prints (and the "score" of a plan file).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "planner/score.h"

namespace topoplan {

// The ten hottest links; `cluster` names the cluster argument as given.
nlohmann::json score_to_json(const Cluster& c, const std::string& cluster, const JobScore& s);

}  // namespace topoplan

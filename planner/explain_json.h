// An explanation as JSON, what `topoplan explain --json` prints under "groups" and "link".
#pragma once

#include <nlohmann/json.hpp>

#include "planner/explain.h"

namespace topoplan {

// The group, its placement, its heaviest collective, slowest link, paths, what fits inside one
// unit and the moves that help.
nlohmann::json group_explanation_json(const Cluster& cluster, const GroupExplanation& group);
// The link, the collectives that cross it and its busy time per phase.
nlohmann::json link_explanation_json(const Cluster& cluster, const LinkExplanation& link);

}  // namespace topoplan

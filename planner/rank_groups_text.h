// Megatron-LM's rank groups as `topoplan groups` prints them: every list initialize_model_parallel
// builds communicators for, as text (the head of each) or as JSON (every group).
#pragma once

#include <string>

#include "planner/rank_groups.h"

namespace topoplan {

std::string rank_groups_text(const RankGroups& groups);
std::string rank_groups_json(const RankGroups& groups);

}  // namespace topoplan

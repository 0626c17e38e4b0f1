// A mended plan for people (what failed, where its ranks went, every spare scored, the swap worth
// making, the full re-plan beside it) and for scripts (the same as JSON, with the mended plan as
// plan writes it).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "planner/replan.h"

namespace topoplan {

// `plan_path` the plan file mended; `written` the files written, listed last.
std::string replan_text(const Cluster& cluster, const std::string& plan_path, const Replan& replan,
                        const std::vector<std::string>& written);
// `plan`: the mended plan as plan_to_json writes it.
nlohmann::json replan_json(const Cluster& cluster, const Replan& replan, nlohmann::json plan);

// The ranks that moved, a line each: "RANK FROM_HOST/gpuN TO_HOST/gpuN" (moved.txt).
std::string moved_ranks_text(const Cluster& cluster, const Layout& before, const Replan& replan);

}  // namespace topoplan

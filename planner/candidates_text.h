// Ranked candidates for people (a table, shortest step first, then those that do not hold the job
// and why) and for schedulers (JSON: every candidate in input order with its rank, and the ids
// ranked).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "planner/candidates.h"

namespace topoplan {

std::string candidates_text(const Job& job, const std::vector<CandidateAllocation>& candidates,
                            const CandidateRanking& ranking);
nlohmann::json candidates_json(const Cluster& cluster, const Job& job, const std::vector<CandidateAllocation>& candidates,
                               const CandidateRanking& ranking);

}  // namespace topoplan

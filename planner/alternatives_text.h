// The layouts job_alternatives offers, for people (a table, fastest first) and for scripts (JSON
// with the same figures and each layout's sizes as the job file takes them).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "planner/alternatives.h"

namespace topoplan {

// `why`: the first line, what the list is for ("the offered hosts have 120 GPUs up; the job needs
// 128").
std::string alternatives_text(const Job& job, const Alternatives& list, const std::string& why);
nlohmann::json alternatives_json(const Cluster& cluster, const Job& job, const Alternatives& list);

}  // namespace topoplan

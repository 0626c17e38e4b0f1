// A plan as JSON (`plan --json`, `-o DIR` writes it as plan.json): the cluster, the job with the
// chosen order, every rank's host, GPU and NIC, every group with its ranks, the score, the
// baselines, the lower bound and how the search went. `score --layout plan.json` reads it back
// (layout.h) and gives the same score.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "planner/plan.h"

namespace topoplan {

inline constexpr const char* kPlanFormat = "topoplan-plan";

// A plan file's text as JSON, refused unless its "format" is a plan's; `where` names it in errors.
Result<nlohmann::json> plan_document_parse(const std::string& text, const std::string& where);

// Every top-level key a plan file has; the layout reader accepts exactly these.
const std::vector<std::string>& plan_json_keys();

// `cluster` names the cluster argument as given.
nlohmann::json plan_to_json(const Cluster& c, const Router& r, const std::string& cluster, const Plan& plan,
                            const PlanRequest& request);

}  // namespace topoplan

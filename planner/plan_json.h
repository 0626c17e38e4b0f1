// A plan as JSON (`plan --json`, `-o DIR` writes it as plan.json): the cluster, the job with the
// chosen order, every rank's host, GPU and NIC, every group with its ranks, the score, the
// baselines, the lower bound and how the search went. `score --layout plan.json` reads it back
// (layout.h) and gives the same score.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/error.h"
#include "planner/layout.h"

namespace topoplan {

class Router;
struct Plan;
struct PlanRequest;

inline constexpr const char* kPlanFormat = "topoplan-plan";

// A plan file's text as JSON, refused unless its "format" is a plan's; `where` names it in errors.
Result<nlohmann::json> plan_document_parse(const std::string& text, const std::string& where);

// A plan file's placement (`score --layout plan.json`): its ranks, the order string they were
// placed under and the devices and links it avoided. `doc` is a parsed plan document.
Result<Layout> plan_layout_read(const nlohmann::json& doc, const std::string& where, const Cluster& c, int world);

// `cluster` names the cluster argument as given.
nlohmann::json plan_to_json(const Cluster& c, const Router& r, const std::string& cluster, const Plan& plan,
                            const PlanRequest& request);

}  // namespace topoplan

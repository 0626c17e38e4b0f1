#include "planner/review_json.h"

#include "planner/plan_json.h"
#include "planner/score_json.h"

namespace topoplan {

nlohmann::json review_to_json(const Cluster& c, const Router& router, const std::string& cluster_arg,
                              const std::string& order, const Review& r, const ReviewLimits& limits,
                              const ScoreOptions& options, const DownSet& down) {
  PlanRequest req;
  req.score = options;
  req.down = down;
  return {{"verdict", r.pass ? "pass" : "fail"},
          {"summary", r.verdict},
          {"reasons", r.reasons},
          {"slowdown", r.slowdown},
          {"max_exposed_s", limits.max_exposed_s ? nlohmann::json(*limits.max_exposed_s) : nlohmann::json(nullptr)},
          {"max_slowdown", limits.max_slowdown ? nlohmann::json(*limits.max_slowdown) : nlohmann::json(nullptr)},
          {"order", order},
          {"score", score_to_json(c, router, cluster_arg, r.score)},
          {"best", plan_to_json(c, router, cluster_arg, r.best, req)}};
}

}  // namespace topoplan

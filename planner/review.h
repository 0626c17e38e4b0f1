// A layout as a gate: its score and findings beside the best layout the planner finds on the same
// hosts, and a verdict a scheduler or a CI job can act on (topoplan review).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "planner/plan.h"

namespace topoplan {

struct ReviewLimits {
  std::optional<double> max_exposed_s;  // exposed communication per step
  // Over the planner's best exposed communication on the same hosts, >= 1. By default a layout
  // that exposes a quarter more than the same hosts allow fails: past that, re-ranking is worth
  // a job restart (the pod-interleaved order of 16 hosts on pods-16-h100 is 1.41x).
  std::optional<double> max_slowdown = 1.25;
};

// review's --max-exposed (a duration; empty: no such gate) and --max-slowdown (a multiple of at
// least 1, or "none"; not given: the default above).
Result<ReviewLimits> review_limits_parse(const std::string& max_exposed,
                                         const std::optional<std::string>& max_slowdown);

struct Review {
  JobScore score;       // of the layout under review
  Plan best;            // the planner's, on the same hosts
  double slowdown = 1;  // score / best, exposed communication
  bool pass = true;
  std::vector<std::string> reasons;  // why it fails, one clause each
  std::string verdict;               // one line for a ticket
};

// `layout` must place the job's ranks; `job` carries the order string it was placed under.
Result<Review> review_layout(const Cluster& cluster, const Router& router, const Job& job, const Layout& layout,
                             const DownSet& down, const ScoreOptions& options, const ReviewLimits& limits);

}  // namespace topoplan

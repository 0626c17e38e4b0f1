// What topoplan-validate needs from a plan file (planner/plan_json.h, "topoplan-plan"): the world,
// every rank's host and GPU, the groups of each kind as Megatron builds them, and the collectives
// the job issues on each kind at their planned sizes.
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "base/error.h"
#include "cost/nccl_tuning.h"

namespace topoplan {

struct PlannedCollective {
  CollectiveOp op = CollectiveOp::all_reduce;
  double bytes = 0;  // nccl-tests' size
};

struct ValidateKind {
  std::string kind;   // the selector kind: tp, cp, dp, pp, ep, etp, edp (planner/group_ref.h)
  std::string token;  // the group list in the plan: tp, cp, dp-cp, pp, expert.ep ...
  std::vector<std::vector<int>> groups;
  std::vector<PlannedCollective> collectives;  // distinct (op, size), in the plan's order
};

struct ValidatePlan {
  std::string source, job;
  int world = 0;
  std::vector<std::string> host_of_rank;
  std::vector<int> gpu_of_rank;      // local index on its host
  std::vector<ValidateKind> kinds;   // with groups of two or more ranks and collectives, selector order
  std::vector<ValidateKind> groups;  // every kind's groups, one-rank groups too (collectives not read)
};

// Errors name the file and the field: "plan.json: groups.tp[1]: rank 9 is outside the world of 8".
Result<ValidatePlan> validate_plan_read(const std::string& path);
Result<ValidatePlan> validate_plan_parse(const std::string& text, const std::string& source);

// "tp,dp" -> the plan's kinds of those names, in the plan's order; "" keeps all. An unknown or
// absent kind is an error that lists what the plan has.
Result<std::vector<ValidateKind>> validate_kinds_select(const ValidatePlan& plan, const std::string& list);

// A size in bytes, a positive multiple of 4 bytes (float32 elements): topoplan's units ("64KiB",
// "1MB") or nccl-tests' ("8", "64K", "8G": K, M, G, T binary).
Result<double> validate_size_parse(const std::string& text);
// Whether a size topoplan-validate ran is the size asked for: it runs whole elements per rank, so
// within 1 % of it.
inline bool validate_size_matches(double run_bytes, double asked_bytes) {
  return std::abs(run_bytes - asked_bytes) <= 0.01 * asked_bytes;
}
// "1KiB,1MiB" -> sizes in bytes, each as validate_size_parse takes it.
Result<std::vector<double>> validate_sizes_parse(const std::string& list);

}  // namespace topoplan

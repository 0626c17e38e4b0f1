// Runs a plan's own collectives on the machines: for each group kind, a communicator per group
// split from the world in the planned order, every group of the kind at once as in training, each
// planned size (or a sweep) with warm-up and timed iterations, results checked against known
// values. The same logic for every backend (validate/backend.h).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "validate/backend.h"
#include "validate/plan_file.h"

namespace topoplan {

struct ValidateOptions {
  std::vector<double> sizes;  // empty: each kind's planned sizes
  int iters = 20, warmup = 5;
};

struct ValidateResult {
  CollectiveOp op = CollectiveOp::all_reduce;
  double bytes = 0;  // nccl-tests' size, as run (rounded down to whole elements per rank)
  size_t count = 0;  // elements as nccl-tests counts them (all-gather, reduce-scatter, all-to-all: per rank)
  double time_us = 0;  // per call, the slowest rank of the group
  double algbw_GBps = 0, busbw_GBps = 0;
  long wrong = 0;  // wrong elements on the group's worst rank
};

struct ValidateGroupResult {
  std::string kind;
  int index = 0;
  std::vector<int> ranks;
  std::vector<ValidateResult> results;
};

struct ValidateRun {
  std::string backend, plan, job;
  int world = 0;
  std::vector<ValidateGroupResult> groups;
  long wrong() const;
};

// nccl-tests' bus bandwidth factor for a group of n (docs: nccl-tests PERFORMANCE.md).
double validate_bus_factor(CollectiveOp op, int n);

// Checks that the world is the plan's (size, and which ranks share a host), splits the
// communicators and checks each holds exactly its group, then runs. Every rank returns the same
// results. `stage` hears what runs now (for a watchdog's message).
Result<ValidateRun> validate_run(ValidateBackend& backend, const ValidatePlan& plan, const std::vector<ValidateKind>& kinds,
                                 const ValidateOptions& options, const std::function<void(const std::string&)>& stage);

// {"backend", "world", "groups": [{"kind", "index", "ranks", "results": [{"op", "bytes", "time_us",
// "busbw_GBps", "wrong"}]}]}
nlohmann::json validate_to_json(const ValidateRun& run);
// nccl-tests' table, one block per group: "#" comment lines, then size, count, type, op, time,
// algbw, busbw and #wrong.
std::string validate_table(const ValidateRun& run);

}  // namespace topoplan

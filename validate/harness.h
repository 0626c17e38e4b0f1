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
#include "validate/nccl_tests_format.h"
#include "validate/plan_file.h"

namespace topoplan {

struct ValidateOptions {
  std::vector<double> sizes;  // empty: each kind's planned sizes
  int iters = 20, warmup = 5;
  // Timed calls split into rounds, the median round's time counting (1: nccl-tests' mean).
  int rounds = 1;
  bool alone = false;  // also each group by itself, the others idle (groups x the time)
};

struct ValidateResult {
  CollectiveOp op = CollectiveOp::all_reduce;
  double bytes = 0;     // nccl-tests' size, as run (rounded down to whole elements per rank)
  size_t count = 0;     // elements as nccl-tests counts them (all-gather, reduce-scatter, all-to-all: per rank)
  double time_us = 0;   // per call, the slowest rank of the group
  double alone_us = 0;  // the same with the kind's other groups idle; 0 when not run
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

// Checks that the world is the plan's (size, and which ranks share a host), splits the
// communicators and checks each holds exactly its group, then runs. Every rank returns the same
// results. `stage` hears what runs now (for a watchdog's message).
Result<ValidateRun> validate_run(ValidateBackend& backend, const ValidatePlan& plan,
                                 const std::vector<ValidateKind>& kinds, const ValidateOptions& options,
                                 const std::function<void(const std::string&)>& stage);

// nccl-tests' own run (topoplan-validate --nccl-tests): one collective on one group in a size
// sweep, out of place then in place at each size, as all_reduce_perf -b 8 -e 128M -f 2 runs it.
// Times are averaged over the group's ranks, as nccl-tests does by default.
struct SweepOptions {
  CollectiveOp op = CollectiveOp::all_reduce;
  std::string kind;  // the group's kind (tp, dp ...); empty: the whole world
  int index = 0;
  double min_bytes = 8, max_bytes = 128.0 * (1 << 20), factor = 2;
  int iters = 20, warmup = 5;
};

struct SweepResult {
  NcclTestsRun table;  // what nccl-tests prints
  ValidateRun run;     // the same out-of-place results, as validate_run gives them (kind "world" for the world)
};

// Every rank returns the same result.
Result<SweepResult> validate_sweep(ValidateBackend& backend, const ValidatePlan& plan, const SweepOptions& options,
                                   const std::function<void(const std::string&)>& stage);

// {"backend", "world", "groups": [{"kind", "index", "ranks", "results": [{"op", "bytes", "time_us",
// "busbw_GBps", "wrong"}]}]}
nlohmann::json validate_to_json(const ValidateRun& run);
// nccl-tests' table, one block per group: "#" comment lines, then size, count, type, op, time,
// algbw, busbw and #wrong.
std::string validate_table(const ValidateRun& run);

}  // namespace topoplan

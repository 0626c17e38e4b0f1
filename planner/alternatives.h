// Other parallel sizes for a job on the GPUs it can have: when the hosts do not hold the job as
// given, or it fits but is slow. Every layout offered is legal for the model as Megatron checks
// it (the job file's own validation: tp dividing the heads, KV groups and FFN; pp the layers; cp
// the sequence in 2 x cp chunks; ep the experts; dp the global batch over the micro-batch), keeps
// the model, the global and micro-batch, the order string and the optimizer settings, and fits in
// GPU memory. Each is scored on the hosts the planner would take for it, ranks host-major in the
// job's order, before the planner's search: `topoplan plan` with those sizes gives the rank order.
#pragma once

#include <string>
#include <vector>

#include "planner/score.h"
#include "topology/down.h"

namespace topoplan {

struct Alternative {
  Job job;  // the job with these sizes
  double step_s = 0, exposed_s = 0, mfu = 0;
  double memory_peak_bytes = 0;  // the fullest stage's, per GPU
  std::vector<int> hosts;        // those it was scored on, in rank order
  bool is_job = false;           // the job's own sizes
};

struct AlternativesRequest {
  std::vector<int> free;  // hosts offered; empty = every host
  DownSet down;           // the Router must have been built with the same
  ScoreOptions score;
  size_t limit = 10;  // the fastest this many
};

struct Alternatives {
  int gpus_available = 0;           // up GPUs on the offered hosts
  int legal = 0;                    // size combinations the model allows on at most that many GPUs
  int over_memory = 0;              // of those, left out: a stage does not fit
  std::vector<Alternative> ranked;  // fastest first
};

// For each legal tp, pp, cp and ep the largest dp that fits, scored; the job's own sizes among them
// when its GPUs are there. An error when no layout fits.
Result<Alternatives> job_alternatives(const Cluster& cluster, const Router& router, const Job& job,
                                      const AlternativesRequest& request);

}  // namespace topoplan

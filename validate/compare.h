// A validation run beside the model (topoplan compare): per group and size, the time the score
// predicts for the plan (every group of the kind at once, as the run had them) and the time
// measured, their ratio, and the groups slower than predicted by more than a threshold, with the
// links they share (the suspects).
#pragma once

#include <string>
#include <vector>

#include "planner/score_state.h"

namespace topoplan {

struct MeasuredResult {
  std::string kind;  // tp, cp, dp, pp, ep, etp, edp
  int index = 0;
  std::vector<int> ranks;
  CollectiveOp op = CollectiveOp::all_reduce;
  double bytes = 0, time_us = 0, busbw_GBps = 0;
  double alone_us = 0;  // the group by itself (topoplan-validate --alone); 0 when not run
  long wrong = 0;
};

struct Measured {
  std::string source, backend;
  std::string plan;  // the plan file the run names, when it does
  int world = 0;
  std::vector<MeasuredResult> results;
};

// topoplan-validate's JSON (validate/harness.h); errors name the file and the field.
Result<Measured> measured_parse(const std::string& text, const std::string& source);
Result<Measured> measured_read(const std::string& path);

struct CompareRow {
  MeasuredResult measured;
  double predicted_us = 0, predicted_busbw_GBps = 0;
  // Running beside the kind's other groups over running alone: measured (with --alone) and as the
  // model's shared links predict it; 0 where not known.
  double measured_slowdown = 0, predicted_slowdown = 0;
  double ratio = 0;        // measured over predicted time
  bool contended = false;  // predicted with the item's other groups (a planned size), else alone
  bool slow = false;       // ratio above 1 + threshold
  bool has_hot_edge = false;
  EdgeId hot_edge = 0;  // what bounds the group in the model
};

struct Suspect {
  EdgeId edge = 0;
  int slow_groups = 0;  // slow groups whose transfers cross it
};

struct Comparison {
  double threshold = 0;
  // False for a run in host memory (MPI backend): its times are the CPUs' and MPI's, which the GPU
  // model does not describe, so rows hold no prediction and no group is slow.
  bool timed = true;
  std::vector<CompareRow> rows;
  int slow = 0;
  int wrong = 0;                  // results with wrong values
  std::vector<Suspect> suspects;  // most slow groups first
};

// What a run in host memory checked, and why its times are not set beside the GPU model's.
inline constexpr const char* kCompareHostMemoryNote =
    "host-memory run: values checked, timing not compared with the GPU model";

// Whether a backend runs its collectives in host memory rather than on the GPUs (validate/mpi).
bool backend_in_host_memory(const std::string& backend);

// The results must come from this plan: the same world and, for each group, the plan's ranks.
// The values are checked in every run; the times only where the run used the GPUs.
Result<Comparison> compare_measured(const Cluster& cluster, const Router& router, const Job& job, const Layout& layout,
                                    const ScoreOptions& options, const Measured& measured, double threshold);

}  // namespace topoplan

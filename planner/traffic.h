// The collectives one training step issues, per kind of group: how many calls of what size, in
// which phase, and which compute they can hide behind. Formulas and their sources are in
// docs/model.md ("Traffic"); counts are those of the slowest pipeline stage, the one that sets
// the step's critical path, except data parallelism's, which each class of stages issues for its
// own parameters.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cost/nccl_tuning.h"
#include "planner/compute.h"
#include "planner/stage_params.h"

namespace topoplan {

// Group kinds as the score reports them; expert data parallelism counts as dp.
enum class TrafficKind : uint8_t { tp, cp, pp, dp, ep };
inline constexpr int kTrafficKinds = 5;
std::string_view to_string(TrafficKind k);

enum class Phase : uint8_t { forward, backward, pipeline, optimizer };
std::string_view to_string(Phase p);  // "forward", "backward", "forward+backward", "optimizer"
inline constexpr size_t kPhases = 4;

// Compute that communication can overlap with, per step.
struct OverlapWindow {
  std::string what;  // "backward of the last micro-batch"
  double us = 0;
};

struct TrafficItem {
  TrafficKind kind = TrafficKind::tp;
  Phase phase = Phase::forward;
  CollectiveOp op = CollectiveOp::all_reduce;
  std::optional<NcclAlgo> algo;  // forced where the framework fixes the pattern (CP's ring)
  // RankGroups token of the groups that issue it ("tp", "dp-cp", "expert.ep"); with stage_pairs,
  // each group is split into its adjacent (stage k, k + 1) pairs.
  std::string group;
  bool stage_pairs = false;
  std::string what;           // "attention and MLP outputs, reduce-scatter (sequence parallel)"
  double bytes = 0;           // per call, nccl-tests' size
  double calls = 0;           // per step, per group
  int window = -1;            // index into StepTraffic::windows, -1 = on the critical path
  double unhidden_calls = 0;  // calls exposed whatever the window (the last gradient bucket)
  // Index into StepTraffic::stage_classes: the item runs only on the groups of those pipeline
  // stages; -1: on every group of the token.
  int stage_class = -1;
};

// Pipeline stages whose data-parallel reductions are the same: the same dense and expert
// parameters per GPU. Each class reduces and gathers its own parameters on its own stages'
// groups, all classes at once; the class that finishes last decides.
struct StageClass {
  std::vector<int> stages;  // pipeline coordinates, ascending
  // How much earlier than stage 0's its last backward ends: the gradient still has to pass back
  // through the stages before it, one model chunk each (1F1B's cool-down).
  double slack_us = 0;
  std::string label() const;  // "stage 0", "stages 1-6", "stages 1, 3"
};

struct StepTraffic {
  ComputeEstimate compute;
  std::vector<OverlapWindow> windows;
  std::vector<TrafficItem> items;
  std::vector<StageClass> stage_classes;  // empty when every stage reduces the same
};

Result<StepTraffic> step_traffic(const Job& job, const ComputeEstimate& compute);

// A pipeline's neighbouring-stage pairs, as a stage_pairs item lists them per pipeline: (k, k + 1)
// for each stage, and with virtual stages also the last stage back to the first.
size_t stage_pairs_per_pipeline(const Job& job);

}  // namespace topoplan

// The collectives one training step issues, per kind of group: how many calls of what size, in
// which phase, and which compute they can hide behind. Formulas and their sources are in
// docs/model.md ("Traffic"); counts are those of the slowest pipeline stage, the one that sets
// the step's critical path.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "planner/compute.h"
#include "cost/nccl_tuning.h"

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
  std::string what;   // "attention and MLP outputs, reduce-scatter (sequence parallel)"
  double bytes = 0;   // per call, nccl-tests' size
  double calls = 0;   // per step, per group
  int window = -1;    // index into StepTraffic::windows, -1 = on the critical path
  double unhidden_calls = 0;  // calls exposed whatever the window (the last gradient bucket)
};

struct StepTraffic {
  ComputeEstimate compute;
  std::vector<OverlapWindow> windows;
  std::vector<TrafficItem> items;
};

Result<StepTraffic> step_traffic(const Job& job, const ComputeEstimate& compute);

// A pipeline's neighbouring-stage pairs, as a stage_pairs item lists them per pipeline: (k, k + 1)
// for each stage, and with virtual stages also the last stage back to the first.
size_t stage_pairs_per_pipeline(const Job& job);

// Parameters one GPU of the slowest-to-sync stage holds: dense (reduced over dp-cp) and expert
// (reduced over expert.dp). Embedding on the first stage, output layer on the last.
struct StageParams {
  double dense = 0, expert = 0;
};
StageParams stage_params(const Job& job, const StageLayers& stage, bool first, bool last);

}  // namespace topoplan

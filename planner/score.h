// A job placed on a cluster, scored: every group's collectives routed together, kind by kind, so
// links that several groups share slow all of them; the exposed communication per step (what the
// compute windows do not hide), per kind and phase; the hottest links; and findings in plain
// words. docs/model.md, "Score".
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planner/memory.h"
#include "planner/score_state.h"

namespace topoplan {

struct ItemScore {
  TrafficItem item;
  int groups = 0;
  int groups_running = 0;  // at once: these, and every other stage class's for DP
  // The group that finishes last with every group of the item running; its time alone and
  // under contention, per call.
  int slowest_group = 0;
  std::string algorithm;
  NcclProto proto = NcclProto::simple;
  double alone_us = 0, contended_us = 0;
  double dci_us = 0;  // propagation per call on its critical path
  // The link that bounds the slowest group under contention, and how many groups load it.
  EdgeId hot_edge = 0;
  bool has_hot_edge = false;
  int hot_edge_groups = 0;    // groups loading it, every stage class's for DP
  double hot_edge_bytes = 0;  // per call, all groups together
  double time_us = 0;         // per step: calls x contended
  double exposed_us = 0;      // per step, after its overlap window
};

struct KindScore {
  double alone_s = 0, time_s = 0, exposed_s = 0;
};

// One direction of a physical link, per training step.
struct LinkUse {
  EdgeId edge = 0;
  Phase peak_phase = Phase::forward;  // beside the edge: 72 bytes a link, not 80 (a million per score)
  double bytes = 0, busy_us = 0;
  double utilization = 0;  // busy time over the estimated step time
  // Busy time in each phase over that phase's duration (phase_durations_us): a link saturated
  // only while pipeline sends run has a low step average and a peak near 1.
  std::array<double, kPhases> phase_utilization{};
  double peak = 0;
};

struct Finding {
  std::string severity;     // "critical", "warning", "info"
  std::string kind;         // "tp", "cp", "pp", "dp", "ep"
  std::string group;        // the group list ("tp", "dp-cp", "expert.ep"), "" for the kind as a whole
  int index = -1;           // the first group's index in that list (explain --group), -1 for none
  std::vector<int> groups;  // every group of that list the finding is about, the first at `index`
  std::vector<int> ranks;   // of the first group
  std::vector<int> hosts;   // host ordinals of the first group, in order of first appearance
  bool has_link = false;
  EdgeId link = 0;  // the slowest link, when the finding has one
  // What the step would gain if this one cause were fixed: the job's exposed communication now
  // less what it would be with the items it names at their time without the cause (at their best
  // case, alone, or without the site link's propagation), every other item as it is. For the
  // exposure findings ("info"), the exposed time itself.
  double cost_per_step_s = 0;
  std::string message;
  std::string fix;  // what to change, "" when there is nothing to suggest
};
struct JobScore {
  std::string job, layout;
  FabricMode fabric = FabricMode::shared;
  std::string background;  // the background file, if any
  int ranks = 0;
  StepTraffic traffic;
  std::vector<ItemScore> items;  // parallel to traffic.items
  std::array<KindScore, kTrafficKinds> by_kind{};
  double comm_s = 0;                 // every call, contended, as if nothing overlapped
  double exposed_comm_s = 0;         // the score: what the step waits for
  double compute_s = 0, step_s = 0;  // step = compute + exposed communication
  // Model FLOPs (compute.model_flops, no recomputation) per GPU per second of the step, and
  // their share of the GPU's dense peak at the job's dtype: the MFU papers report.
  double model_tflops_per_gpu = 0, mfu = 0;
  // The same with the recomputed forward counted (compute.hardware_flops): HFU. Equal to MFU
  // without recomputation.
  double hardware_tflops_per_gpu = 0, hfu = 0;
  std::vector<LinkUse> links;     // every loaded direction, highest utilization first
  std::vector<Finding> findings;  // most severe first
  // Every group alone at its best placement on the layout's hosts (lower_bound), when a finding
  // needed it: the floor the findings' costs are measured against.
  std::optional<double> lower_bound_s;
  LevelBytes level_bytes{};           // per step, by the highest fabric level crossed
  MemoryEstimate memory;              // per GPU, each stage's peak
  std::vector<VertexId> gpu_of_rank;  // the placement scored
};

// A line per finding, indented: "[critical] message (fixed: -1.2 s per step); fix: ...", or
// "  none"; then, when something is wrong, the layout's exposed communication over its lower bound.
std::string findings_text(const std::vector<Finding>& findings, const JobScore& score);
// "3 groups in 2 critical findings": the critical findings about groups, counted by the groups
// they stand for (one finding can be every TP group of the job); "" when there are none. The
// memory finding is about the job, not a group, and is not counted.
std::string critical_groups_text(const std::vector<Finding>& findings);
// "fixed: -1.2 s per step" for a finding with a cost, else "".
std::string finding_cost_text(const Finding& finding);

// One group's collectives per step, contended, and their excess over each item's best case
// (best_item_us: lower_bound's item_us); `heaviest` the item that costs it most per step.
struct GroupCost {
  double per_step_s = 0, excess_s = 0;
  size_t heaviest = SIZE_MAX;
};
GroupCost group_cost(const ScoreState& state, const std::vector<double>& best_item_us, const std::string& token,
                     int index);

// How long each phase of a step lasts, the window link utilisation is measured over: forward and
// backward, the compute of every micro-batch plus the phase's exposed communication; pipeline, the
// PP send slots (every pipeline transfer, contended); optimizer, its own collectives.
std::array<double, kPhases> phase_durations_us(const ScoreState& state);
// The step of a state, compute and exposed communication, as JobScore::step_s.
double state_step_s(const ScoreState& state);
// Every link direction the state loads, per step, highest peak first (JobScore::links).
std::vector<LinkUse> link_uses(const ScoreState& state);
// The window's name in link utilisation: "forward", "backward", "pp_slots", "optimizer".
std::string_view phase_window_name(Phase p);

// The layout must place exactly the job's ranks.
Result<JobScore> score_job(const Cluster& cluster, const Router& router, const Job& job, const Layout& layout,
                           const ScoreOptions& options = {});
// The report of a state already built (the planner's): the same as score_job on its layout.
// `best_item_us`: lower_bound's item_us for this layout when the caller has it (else computed
// when a finding needs it).
Result<JobScore> score_report(const Cluster& cluster, const Router& router, const Job& job, const ScoreState& state,
                              const ScoreOptions& options = {}, const std::vector<double>* best_item_us = nullptr);

}  // namespace topoplan

// A job placed on a cluster, scored: every group's collectives routed together, kind by kind, so
// links that several groups share slow all of them; the exposed communication per step (what the
// compute windows do not hide), per kind and phase; the hottest links; and findings in plain
// words. docs/model.md, "Score".
#pragma once

#include <array>
#include <string>
#include <vector>

#include "planner/score_state.h"

namespace topoplan {

struct ItemScore {
  TrafficItem item;
  int groups = 0;
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
  int hot_edge_groups = 0;
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
  double bytes = 0, busy_us = 0;
  double utilization = 0;  // busy time over the estimated step time
};

struct Finding {
  std::string severity;  // "critical", "warning", "info"
  std::string kind;      // "tp", "cp", "pp", "dp", "ep"
  std::string group;     // "tp 5", or "" for the kind as a whole
  std::string message;
};

struct JobScore {
  std::string job, layout;
  FabricMode fabric = FabricMode::shared;
  std::string background;  // the background file, if any
  int ranks = 0;
  StepTraffic traffic;
  std::vector<ItemScore> items;  // parallel to traffic.items
  std::array<KindScore, kTrafficKinds> by_kind{};
  double comm_s = 0;          // every call, contended, as if nothing overlapped
  double exposed_comm_s = 0;  // the score: what the step waits for
  double compute_s = 0, step_s = 0;  // step = compute + exposed communication
  std::vector<LinkUse> links;  // every loaded direction, highest utilization first
  std::vector<Finding> findings;  // most severe first
  LevelBytes level_bytes{};       // per step, by the highest fabric level crossed
};

// The layout must place exactly the job's ranks.
Result<JobScore> score_job(const Cluster& cluster, const Router& router, const Job& job, const Layout& layout,
                           const ScoreOptions& options = {});
// The report of a state already built (the planner's): the same as score_job on its layout.
Result<JobScore> score_report(const Cluster& cluster, const Router& router, const Job& job, const ScoreState& state,
                              const ScoreOptions& options = {});

}  // namespace topoplan

// NCCL's communicators as the job's own groups, so `score --traffic` scores what the job really
// issued: each communicator is matched to the group of the layout whose GPUs it spans, in rank
// order, and its per-step calls become the traffic items of that group's kind, in the phase and
// overlap window of the model's item they correspond to. docs/observe.md.
#pragma once

#include <string>
#include <vector>

#include "observe/observed_traffic.h"
#include "planner/job.h"
#include "planner/layout.h"
#include "planner/traffic.h"

namespace topoplan {

struct ScoredTraffic {
  // The model's compute, windows and stage classes; the log's items.
  StepTraffic traffic;
  // "0x1a2b (8 ranks) = tp:3", one per communicator matched.
  std::vector<std::string> matched;
  // Communicators and calls left out, and why: not a group of the job's kinds (a world or
  // embedding communicator), members the layout does not place, ops the model has no name for.
  std::vector<std::string> unscored;
  // Where the log and the model part: items of the model the log lacks, calls with no model item
  // to take a phase from (scored on the critical path), groups whose communicators disagree.
  std::vector<std::string> notes;
};

// Errors: a member on a host the cluster lacks, or a CUDA ordinal past its GPUs.
Result<ScoredTraffic> scored_traffic(const ObservedTraffic& observed, const Cluster& cluster, const Job& job,
                                     const Layout& layout, const StepTraffic& model);

// The traffic NCCL's log shows (a `topoplan traffic --json` file) scored as the job's items under
// the model's compute; an error, naming the file, when no communicator of it is a group of the job.
Result<ScoredTraffic> scored_traffic_load(const std::string& path, const Cluster& cluster, const Job& job,
                                          const Layout& layout);

}  // namespace topoplan

// The traffic NCCL's log shows beside a job's modelled traffic, matched by group size and
// operation as a log without a layout allows: what the model lacks, and what it over-counts.
#pragma once

#include <string>
#include <vector>

#include "observe/observed_traffic.h"
#include "planner/job.h"
#include "planner/traffic.h"

namespace topoplan {

struct TrafficRow {
  int group_size = 0;
  std::string op;                  // the model's spelling; "sendrecv" for Send/Recv and AlltoAll, which p2p and
                                   // all-to-all both become in NCCL's log
  std::vector<std::string> kinds;  // the model's group kinds of that size and op: "tp", "dp"
  // Per communicator (group) and step, averaged over the groups of that size: bytes as
  // nccl-tests counts them (a Send counts, its Recv not) and calls.
  double model_bytes = 0, model_calls = 0;
  double observed_bytes = 0, observed_calls = 0;
  int model_groups = 0, observed_comms = 0;
  enum class Verdict : uint8_t { ok, model_lacks, model_over_counts, model_under_counts } verdict = Verdict::ok;
};
std::string_view to_string(TrafficRow::Verdict v);  // "ok", "model lacks", ...

// `tolerance` > 1: observed over modelled bytes beyond it, or below its inverse, is a verdict.
Result<std::vector<TrafficRow>> traffic_beside_model(const ObservedTraffic& observed, const Job& job,
                                                     const StepTraffic& model, double tolerance);

}  // namespace topoplan

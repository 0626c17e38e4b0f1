// The traffic a job really issued, from NCCL's log: its communicators, and per communicator the
// calls of one training step. The step is found in the calls themselves (nccl_log_pattern) or
// given. Written and read as JSON ("topoplan-traffic") so `score --traffic` can score it.
// docs/observe.md.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cost/nccl_tuning.h"
#include "observe/nccl_log.h"

namespace topoplan {

// Calls of one kind (op and size) on one communicator.
struct ObservedCall {
  std::string op;    // as NCCL prints it: AllReduce, Send ...
  double bytes = 0;  // nccl-tests' size
  double calls = 0;  // per step; for setup calls, in all
};

// The model's operation for an op NCCL prints: Send (with its Recv) is sendrecv, AlltoAll
// alltoall; nullopt for ops the model has no name for (Recv alone, Gather, Scatter).
std::optional<CollectiveOp> observed_op(const std::string& nccl_op);
// "AllGather 128 MiB x 40, ReduceScatter 128 MiB x 40", "none" for no calls.
std::string observed_calls_text(const std::vector<ObservedCall>& calls);

struct ObservedComm {
  std::string comm_id;
  int nranks = 0;
  std::vector<NcclLogRank> members;    // by rank, those the log shows
  std::vector<ObservedCall> per_step;  // in order of first appearance
  std::vector<ObservedCall> setup;     // before the pattern starts (parameter broadcasts ...)
  StepPattern pattern;
  // Bytes one rank sends per step as nccl-tests counts them; a Send counts, its Recv does not.
  double bytes_per_step() const;
};

struct ObservedTraffic {
  std::string version;  // NCCL's, "" unknown
  double steps = 0;
  std::string steps_from;  // "--steps", or which communicator's pattern set it
  std::vector<ObservedComm> comms;
  std::vector<std::string> warnings;
};

// `steps`: the number of steps the log covers when known; else the fewest repeats of any
// communicator's pattern (a data-parallel one repeats once per step), and 1 with a warning when
// no communicator's calls repeat.
Result<ObservedTraffic> observed_traffic(const NcclLog& log, std::optional<double> steps);

nlohmann::json observed_traffic_to_json(const ObservedTraffic& t);
// Errors name `where` and the field.
Result<ObservedTraffic> observed_traffic_from_json(const nlohmann::json& doc, const std::string& where);
Result<ObservedTraffic> observed_traffic_load(const std::string& path);

}  // namespace topoplan

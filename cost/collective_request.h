// A collective request from the words of `topoplan collective`'s options: the operation, a forced
// algorithm and protocol, and the GPUs by index. Errors name the option, as the command prints them.
#pragma once

#include <string>
#include <vector>

#include "cost/collective.h"

namespace topoplan {

// `algo` and `proto` as NCCL_ALGO and NCCL_PROTO spell them, "auto" to leave the choice to the
// tuner. The size and the GPUs are the caller's to fill.
Result<CollectiveRequest> collective_request_parse(const std::string& op, const std::string& algo,
                                                   const std::string& proto);

// GPUs by global index, host-major ("0-7,16"; empty: every GPU), in the order given, keeping only
// the first `per_host` of each host where it is > 0. A collective needs at least 2.
Result<std::vector<VertexId>> collective_gpus_pick(const Cluster& cluster, const std::string& indices, int per_host);

}  // namespace topoplan

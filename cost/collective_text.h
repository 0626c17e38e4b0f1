// A prediction as `topoplan collective` prints it: the choice and its bottleneck, the terms of the
// choice beside the runner-up (--why), and a sweep of sizes in nccl-tests' layout.
#pragma once

#include <string>
#include <vector>

#include "cost/collective.h"

namespace topoplan {

std::string collective_text(const CollectivePrediction& prediction);
// The cluster names each candidate's busiest link.
std::string collective_why_text(const Cluster& cluster, const CollectivePrediction& prediction);
// `cluster`: the spec or file as given, for the header. `rows` is not empty.
std::string collective_sweep_text(const std::string& cluster, const std::vector<CollectivePrediction>& rows);

}  // namespace topoplan

// A transfer beside a job as `topoplan transfer --job` prints it: the DCI each way with what the
// job uses and leaves, then the transfer's time on the spare capacity and taking its share.
#pragma once

#include <string>

#include "planner/transfer_beside_job.h"

namespace topoplan {

std::string transfer_beside_job_text(const Cluster& cluster, const TransferBesideJobRequest& request,
                                     const TransferBesideJob& result);

}  // namespace topoplan

// A transfer beside a job as JSON: what `topoplan transfer --job --json` prints.
#pragma once

#include <nlohmann/json.hpp>

#include "planner/transfer_beside_job.h"

namespace topoplan {

// Infinite times (a job that leaves nothing spare) as null.
nlohmann::json transfer_beside_job_to_json(const Cluster& cluster, const TransferBesideJobRequest& request,
                                           const TransferBesideJob& result);

}  // namespace topoplan

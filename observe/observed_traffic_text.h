// The traffic NCCL's log shows as `topoplan traffic` prints it: the communicators that issue the
// same calls per step as one row, their setup calls, the rows beside the job's model when given,
// and the log's warnings.
#pragma once

#include <optional>
#include <string>

#include "observe/observed_traffic.h"
#include "observe/traffic_beside_job.h"

namespace topoplan {

std::string observed_traffic_text(const ObservedTraffic& traffic, const std::optional<TrafficBesideJob>& beside);

}  // namespace topoplan

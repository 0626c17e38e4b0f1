// `topoplan traffic --job`: the log's traffic beside the traffic a job file models, from the job's
// path, so the command and tests run the same sequence (observe/traffic_compare.h).
#pragma once

#include <string>
#include <vector>

#include "observe/traffic_compare.h"

namespace topoplan {

struct TrafficBesideJob {
  std::string job;  // its name
  std::vector<TrafficRow> rows;
};

// Errors: the job file's own, the rest prefixed with `job_path`.
Result<TrafficBesideJob> traffic_beside_job(const ObservedTraffic& observed, const std::string& job_path,
                                            double tolerance);

}  // namespace topoplan

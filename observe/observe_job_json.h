// An observe_job result as JSON: what `topoplan observe --json` prints (docs/observe.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "observe/observe_job.h"

namespace topoplan {

// `counter_files` as given, for the record; rates in Gbit/s as the counters' users read them.
nlohmann::json observe_job_to_json(const Cluster& cluster, const ObserveJob& result,
                                   const std::vector<std::string>& counter_files);

}  // namespace topoplan

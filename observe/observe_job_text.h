// An observe_job result as `topoplan observe` prints it: the step judged against, every observed
// direction beside its prediction, the flagged links with the groups on them, the counters that
// name no link, and the note that these are correlations (docs/observe.md).
#pragma once

#include <string>

#include "observe/observe_job.h"

namespace topoplan {

// `cluster_spec` as the user gave it; `counter_files`: how many files the counters came from.
std::string observe_job_text(const Cluster& cluster, const std::string& cluster_spec, const ObserveJob& result,
                             size_t counter_files);

}  // namespace topoplan

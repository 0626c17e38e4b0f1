// What `score --traffic` adds under the score: how many of the log's communicators were scored as
// the job's groups, and what was left out and why.
#pragma once

#include <string>

#include "observe/scored_traffic.h"

namespace topoplan {

// `path`: the traffic file, as given.
std::string scored_traffic_text(const std::string& path, const ScoredTraffic& traffic);

}  // namespace topoplan

// Who slows whom, for people (each job's step alone and beside the others under both alignments,
// the jobs that slow it, then the links where jobs meet) and for scripts (JSON with the same
// content: `jobs`, each with `step_alone_s`, `step_s`, `slowdown` and `slowed_by` under the
// alignment asked for and both alignments in full, and `links`, every loaded one, jobs' meeting first).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "planner/contention.h"

namespace topoplan {

// `links`: how many of the links where jobs meet to list.
std::string contention_text(const Cluster& cluster, const RunningJobs& running, const Contention& contention,
                            size_t links);
// `alignment`: the one `step_s`, `slowdown` and `slowed_by` give. Every loaded link is listed.
nlohmann::json contention_json(const Cluster& cluster, const RunningJobs& running, const Contention& contention,
                               Alignment alignment);

// --html FILE: the fabric coloured by every job's load together (summed: past 100% where they
// cannot all have what they ask), each host in its job's colour, a job's links lit when picked.
Result<void> contention_html_write(const std::string& path, const Cluster& cluster, const RunningJobs& running,
                                   const Contention& contention, const std::string& text);

}  // namespace topoplan

// A score's load per physical link as CSV, what `topoplan score --links` writes: one row per link
// that carries bytes, both directions side by side (bytes, utilization and peak per step).
#pragma once

#include <string>

#include "planner/score.h"

namespace topoplan {

std::string links_csv(const Cluster& cluster, const JobScore& score);

}  // namespace topoplan

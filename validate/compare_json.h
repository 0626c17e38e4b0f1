// A comparison as JSON, what `topoplan compare --json` prints: each result beside its prediction,
// the slow and wrong counts and the suspect links.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "validate/compare.h"

namespace topoplan {

// `plan_path` and `measured_path` as given, for the record.
nlohmann::json comparison_to_json(const Cluster& cluster, const std::string& plan_path,
                                  const std::string& measured_path, const Measured& measured,
                                  const Comparison& comparison);

}  // namespace topoplan

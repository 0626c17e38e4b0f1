// A comparison as `topoplan compare` prints it: the verdict line, each result beside its
// prediction (a host-memory run's without one) and the suspect links; compare_json.h is the same
// for --json.
#pragma once

#include <string>

#include "validate/compare.h"

namespace topoplan {

// `plan_path` and `measured_path` as given, to head the text.
std::string comparison_text(const Cluster& cluster, const std::string& plan_path, const std::string& measured_path,
                            const Measured& measured, const Comparison& comparison);

}  // namespace topoplan

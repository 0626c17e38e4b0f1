// A calibration as JSON, what `topoplan calibrate --json` prints: the overlay, each class's and
// series' fit, the held-out sizes and whether they pass.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "validate/calibrate.h"

namespace topoplan {

// `sources`: the files fitted; `written`: the overlay's path, empty when none was written.
nlohmann::json calibration_fit_to_json(const std::vector<std::string>& sources,
                                       const std::vector<CalibrationSeries>& series, const CalibrationFit& fit,
                                       const std::vector<HeldSize>& held, double tolerance, bool failed,
                                       const std::string& written);

}  // namespace topoplan

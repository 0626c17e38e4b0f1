// A calibration as `topoplan calibrate` prints it: per class the efficiency before and after, per
// series the fits measured and modelled, the held-out sizes and their verdict, and whether the
// overlay was written; calibrate_json.h is the same for --json.
#pragma once

#include <string>

#include "validate/calibrate_from.h"

namespace topoplan {

// `options` name the sources and the tolerance; `written`: the overlay's path, empty when none was
// written.
std::string calibration_run_text(const CalibrateOptions& options, const CalibrationRun& run,
                                 const std::string& written);

}  // namespace topoplan

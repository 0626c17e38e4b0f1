// What `topoplan calibrate` fits, from either source: topoplan-validate's results on the plan they
// ran, or nccl-tests logs on the cluster they ran on; then the fit and whether the held-out sizes
// pass. One function from the options to the result, so that a test calls what the command calls.
#pragma once

#include <string>
#include <vector>

#include "validate/calibrate.h"

namespace topoplan {

// The command's options as given; errors name them.
struct CalibrateOptions {
  std::string measured, plan;     // topoplan-validate's results, and their plan (default: the one they name)
  std::vector<std::string> logs;  // or nccl-tests logs
  std::string cluster;            // logs: required; results: default the plan's
  std::string nodes;              // a hostlist: the cluster hosts of the logs' hosts, in order of first appearance
  std::string hold_out;           // sizes predicted instead of fitted: "64KiB,4MiB"
  std::string base;               // the overlay to start from; "" for topoplan's defaults
  double tolerance = 0.3;         // the largest median error at a held-out size
};

struct CalibrationRun {
  std::vector<std::string> sources;  // the files fitted
  std::vector<CalibrationSeries> series;
  CalibrationFit fit;  // its calibration's source names the first file
  std::vector<HeldSize> held;
  bool failed = false;  // a held-out size's median error is past the tolerance
};

// Exactly one of `measured` and `logs` is given; the results must place as many ranks as their
// plan.
Result<CalibrationRun> calibrate_from(const CalibrateOptions& options);

}  // namespace topoplan

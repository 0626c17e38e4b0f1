// What a training run's own log says about the model (topoplan calibrate --training-log): the
// step it measured, and the calibration's compute_efficiency for the run's GPU generation that
// makes the model's step for the same job and layout equal it. Where the log times the DP
// synchronisation the step waited for (Megatron's timers), that time stands in for the model's
// in the compute fit, and the efficiency of the link that bounds the DP groups is fitted so the
// model's exposed DP time equals it: compute and exposed communication told apart.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "planner/job_inputs.h"
#include "validate/training_log.h"

namespace topoplan {

struct ComputeFit {
  std::string gpu;
  GpuArch arch = GpuArch::hopper;
  double measured_step_s = 0;
  double efficiency_before = 0, predicted_before_s = 0;  // the base calibration's
  double efficiency = 0, predicted_step_s = 0;           // fitted
  Calibration calibration;                               // the base with the fitted efficiency
};

// Solves score(efficiency).step_s = measured_step_s, from `base` (the inputs' calibration when
// null). With `logged_dp_sync_s` the score's exposed DP time is replaced by it: the fit is of the
// rest. An error when even the kernels' full rates (efficiency 1) give a longer step, which says
// the job, layout or cluster is not the run's.
Result<ComputeFit> fit_compute_efficiency(const JobInputs& in, double measured_step_s,
                                          std::optional<double> logged_dp_sync_s = {},
                                          const Calibration* base = nullptr);

// The log's DP synchronisation beside the model's exposed DP time, and the link efficiency that
// makes them agree.
struct DpSyncFit {
  double logged_s = 0;                  // median over the iterations that timed it
  int iterations = 0;                   // that timed it
  double model_before_s = 0;            // at the fitted compute, the base network
  double model_s = 0;                   // after the fit
  std::string link;                     // the link that bounds the slowest DP collective
  std::string key;                      // its overlay key: "efficiency.NET", "nvl_efficiency.hopper"
  double efficiency_before = 0, efficiency = 0;
  std::string not_fitted;               // why the network was left as it was; "" when fitted
};

struct TrainingCalibrateOptions {
  std::vector<std::string> logs;
  std::string job, cluster, layout;  // layout: "" for the default one
  std::string base;                  // the overlay to start from; "" for topoplan's defaults
  int skip = 1;                      // each log's first iterations, which carry start-up
};

struct TrainingCalibration {
  std::vector<TrainingLog> logs;
  int iterations = 0;             // used, over all logs
  double logged_tflops = 0;       // the logs' median TFLOPS per GPU; 0 where none is printed
  double model_tflops = 0;        // the model's count at the measured step
  std::optional<DpSyncFit> dp_sync;  // where the logs time it
  ComputeFit fit;                    // with the fitted network, when there is one
};

Result<TrainingCalibration> calibrate_training(const TrainingCalibrateOptions& options);

// For people and for scripts: what was read, what was fitted, what it now predicts.
std::string training_calibration_text(const TrainingCalibration& run, const std::string& output);
nlohmann::json training_calibration_json(const TrainingCalibration& run, const std::string& output);

}  // namespace topoplan

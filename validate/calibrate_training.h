// What a training run's own log says about the compute model (topoplan calibrate --training-log):
// the step it measured, and the calibration's compute_efficiency for the run's GPU generation that
// makes the model's step for the same job and layout equal it. The network's figures stay as the
// base calibration has them: the log cannot tell compute from exposed communication.
#pragma once

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

// Solves score(efficiency).step_s = measured_step_s; an error when even the kernels' full rates
// (efficiency 1) give a longer step, which says the job, layout or cluster is not the run's.
Result<ComputeFit> fit_compute_efficiency(const JobInputs& in, double measured_step_s);

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
  ComputeFit fit;
};

Result<TrainingCalibration> calibrate_training(const TrainingCalibrateOptions& options);

// For people and for scripts: what was read, what was fitted, what it now predicts.
std::string training_calibration_text(const TrainingCalibration& run, const std::string& output);
nlohmann::json training_calibration_json(const TrainingCalibration& run, const std::string& output);

}  // namespace topoplan

// Iteration lines of a training run's log, as the frameworks print them, so a site's own runs can
// calibrate the compute model (topoplan calibrate --training-log):
//   Megatron-LM  "iteration 100/500000 | ... | elapsed time per iteration (ms): 12345.6 |
//                 throughput per GPU (TFLOP/s/GPU): 400.1 | ..." (training.py, training_log; the
//                 time is the mean over the log interval)
//   NeMo         "... global_step: 9 | ... | train_step_timing in s: 12.34 | ..." (NeMo 2), or
//                 "global_step=9.000, ..., train_step_timing in s=12.30" (NeMo 1's progress bar)
//   torchtitan   "step: 10  loss: 7.85  memory: 30.15GiB(38.07%)  tps: 1,234  tflops: 345.67
//                 mfu: 34.95%" (train.py; "wps" before tps; colour codes stripped)
// Megatron-LM with --timing-log-level 1 or more also prints its timers after the iteration line
// ("(min, max) time across ranks (ms):" or, with --timing-log-option max, "max time across ranks
// (ms):", then "    all-grads-sync ......: (12.01, 15.33)"), each the mean over the log interval.
// The two DP synchronisations the step waits for are read from it (see TrainingIteration).
// Other lines are skipped; a line that has a format's marker but not its numbers is an error.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/error.h"

namespace topoplan {

enum class TrainingLogFormat : uint8_t { megatron, nemo, torchtitan };
std::string_view to_string(TrainingLogFormat f);

struct TrainingIteration {
  long iteration = 0;
  int line = 0;
  double step_s = 0;                // Megatron, NeMo; 0 where the log gives tokens per second instead
  double tokens_per_s_per_gpu = 0;  // torchtitan
  double tflops_per_gpu = 0;        // where the log prints it; 0 otherwise
  // Megatron's 'all-grads-sync' plus 'params-all-gather', the slowest rank's: the gradient
  // reduction the backward pass did not hide and the distributed optimizer's parameter gather,
  // which the step waits for (each timer starts after a barrier, the default
  // --barrier-with-L1-time, so a rank's wait for the others is not in it). Absent without timers.
  std::optional<double> dp_sync_s;
};

struct TrainingLog {
  std::string source;
  TrainingLogFormat format = TrainingLogFormat::megatron;
  std::vector<TrainingIteration> iterations;
};

// `where` (the file name) prefixes errors: "run.log:12: elapsed time per iteration (ms): expected
// a positive number, got 'nan'". An error when no line is an iteration line of any format, or the
// file mixes formats.
Result<TrainingLog> training_log_parse(const std::string& text, const std::string& where);
Result<TrainingLog> training_log_read(const std::string& path);

}  // namespace topoplan

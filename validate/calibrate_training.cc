#include "validate/calibrate_training.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/limits.h"
#include "base/units.h"
#include "validate/median.h"

namespace topoplan {
namespace {

Result<double> step_at(const JobInputs& in, Calibration& cal, GpuArch arch, double efficiency) {
  cal.compute_efficiency[static_cast<size_t>(arch)] = efficiency;
  ScoreOptions opt = in.model.options;
  opt.calibration = &cal;
  Result<JobScore> s = score_job(in.cluster, *in.router, in.job, in.layout, opt);
  RETURN_IF_ERROR(s);
  return s->step_s;
}

}  // namespace

Result<ComputeFit> fit_compute_efficiency(const JobInputs& in, double measured) {
  ComputeFit fit;
  fit.measured_step_s = measured;
  fit.gpu = in.cluster.device(in.layout.gpu_of_rank.front()).model;
  fit.arch = gpu_arch_of(in.cluster, in.layout.gpu_of_rank.front());
  fit.calibration = in.model.calibration;
  fit.efficiency_before = fit.calibration.compute_efficiency[static_cast<size_t>(fit.arch)];
  Result<double> before = step_at(in, fit.calibration, fit.arch, fit.efficiency_before);
  RETURN_IF_ERROR(before);
  fit.predicted_before_s = *before;
  Result<double> full = step_at(in, fit.calibration, fit.arch, 1);
  RETURN_IF_ERROR(full);
  if (*full > measured)
    return Error{"the measured step (" + format_duration(measured) + ") is shorter than the model's at the kernels' " +
                 "full rates (" + format_duration(*full) + "): the job, layout or cluster given is not the run's"};
  // The step is compute / efficiency plus exposed communication, which shrinks as compute grows
  // to hide it: near linear in 1 / efficiency. Secant steps on it from efficiency 1.
  double x0 = 1, y0 = *full;
  double x1 = 1 / fit.efficiency_before, y1 = *before;
  if (std::abs(x1 - x0) < 1e-9) {
    x1 = 2;
    Result<double> y = step_at(in, fit.calibration, fit.arch, 1 / x1);
    RETURN_IF_ERROR(y);
    y1 = *y;
  }
  for (int i = 0; i < 30 && std::abs(y1 / measured - 1) > 1e-5; ++i) {
    const double slope = (y1 - y0) / (x1 - x0);
    double x2 = slope > 0 ? x1 + (measured - y1) / slope : x1 * measured / y1;
    x2 = std::clamp(x2, 1.0, 1 / limits::kMinLinkEfficiency);  // efficiency in the overlay's range
    Result<double> y2 = step_at(in, fit.calibration, fit.arch, 1 / x2);
    RETURN_IF_ERROR(y2);
    x0 = x1, y0 = y1, x1 = x2, y1 = *y2;
  }
  fit.efficiency = 1 / x1;
  fit.predicted_step_s = y1;
  fit.calibration.compute_efficiency[static_cast<size_t>(fit.arch)] = fit.efficiency;
  return fit;
}

Result<TrainingCalibration> calibrate_training(const TrainingCalibrateOptions& o) {
  if (o.job.empty() || o.cluster.empty()) return Error{"--training-log needs --job and --cluster: the run's job and cluster"};
  Result<std::unique_ptr<JobInputs>> in = job_inputs_load(o.cluster, o.job, o.layout, {.calibration = o.base});
  RETURN_IF_ERROR(in);
  const Job& job = (*in)->job;
  TrainingCalibration run;
  std::vector<double> steps, tflops;
  // torchtitan logs tokens per second per GPU: the job's tokens per step over its GPUs.
  const double tokens_per_gpu =
      static_cast<double>(job.training.global_batch) * job.training.seq_length / job_ranks(job);
  for (const std::string& path : o.logs) {
    Result<TrainingLog> log = training_log_read(path);
    RETURN_IF_ERROR(log);
    const size_t skip = static_cast<size_t>(o.skip);
    if (log->iterations.size() <= skip)
      return Error{path + ": " + std::to_string(log->iterations.size()) + " iteration lines, and --skip leaves out the first " +
                   std::to_string(skip) + "; give a longer log or a smaller --skip"};
    for (size_t i = skip; i < log->iterations.size(); ++i) {
      const TrainingIteration& it = log->iterations[i];
      steps.push_back(it.step_s > 0 ? it.step_s : tokens_per_gpu / it.tokens_per_s_per_gpu);
      if (it.tflops_per_gpu > 0) tflops.push_back(it.tflops_per_gpu);
    }
    run.logs.push_back(std::move(*log));
  }
  run.iterations = static_cast<int>(steps.size());
  run.logged_tflops = median(tflops);
  Result<ComputeFit> fit = fit_compute_efficiency(**in, median(steps));
  RETURN_IF_ERROR(fit);
  run.fit = std::move(*fit);
  run.fit.calibration.source = "topoplan calibrate --training-log " + o.logs.front();
  Result<ComputeEstimate> compute = compute_estimate(job, run.fit.gpu, run.fit.calibration);
  RETURN_IF_ERROR(compute);
  run.model_tflops = compute->model_flops / job_ranks(job) / run.fit.measured_step_s / 1e12;
  return run;
}

std::string training_calibration_text(const TrainingCalibration& r, const std::string& output) {
  std::ostringstream out;
  const ComputeFit& f = r.fit;
  out << "read " << r.iterations << " iterations from " << r.logs.size() << (r.logs.size() == 1 ? " log" : " logs")
      << " (" << to_string(r.logs.front().format) << "): median step " << format_duration(f.measured_step_s);
  if (r.logged_tflops > 0)
    out << ", " << format_number(r.logged_tflops, 1) << " TFLOPS per GPU as logged ("
        << format_number(r.model_tflops, 1) << " as topoplan counts the model)";
  out << "\n";
  out << "fitted " << to_string(f.arch) << " compute_efficiency " << format_number(f.efficiency, 3) << " (was "
      << format_number(f.efficiency_before, 3) << ", which predicted " << format_duration(f.predicted_before_s) << ")\n";
  out << "predicts " << format_duration(f.predicted_step_s) << " per step for this job and layout on " << f.gpu << "\n";
  if (!output.empty()) out << "wrote " << output << ": use it with --calibration\n";
  return out.str();
}

nlohmann::json training_calibration_json(const TrainingCalibration& r, const std::string& output) {
  nlohmann::json logs = nlohmann::json::array();
  for (const TrainingLog& l : r.logs)
    logs.push_back({{"source", l.source}, {"format", to_string(l.format)}, {"iterations", l.iterations.size()}});
  const ComputeFit& f = r.fit;
  nlohmann::json j = {{"logs", logs},
                      {"iterations_used", r.iterations},
                      {"measured_step_s", f.measured_step_s},
                      {"model_tflops_per_gpu", r.model_tflops},
                      {"gpu", f.gpu},
                      {"arch", to_string(f.arch)},
                      {"compute_efficiency_before", f.efficiency_before},
                      {"predicted_before_s", f.predicted_before_s},
                      {"compute_efficiency", f.efficiency},
                      {"predicted_step_s", f.predicted_step_s},
                      {"calibration", calibration_to_json(f.calibration)}};
  if (r.logged_tflops > 0) j["logged_tflops_per_gpu"] = r.logged_tflops;
  if (!output.empty()) j["output"] = output;
  return j;
}

}  // namespace topoplan

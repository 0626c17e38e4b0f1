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

// A fabric that gives a collective less than a twentieth of its links' rate is broken, not slow:
// the network fit looks no lower.
constexpr double kMinFittedLinkEfficiency = 0.05;

Result<JobScore> score_with(const JobInputs& in, const Calibration& cal) {
  ScoreOptions opt = in.model.options;
  opt.calibration = &cal;
  return score_job(in.cluster, *in.router, in.job, in.layout, opt);
}

double dp_exposed_s(const JobScore& s) { return s.by_kind[static_cast<size_t>(TrafficKind::dp)].exposed_s; }

// The DP collective that takes the longest per step, with the link that bounds it; null when the
// job has no DP traffic.
const ItemScore* slowest_dp_item(const JobScore& s) {
  const ItemScore* slowest = nullptr;
  for (const ItemScore& i : s.items)
    if (i.item.kind == TrafficKind::dp && i.has_hot_edge && (!slowest || i.time_us > slowest->time_us)) slowest = &i;
  return slowest;
}

}  // namespace

Result<ComputeFit> fit_compute_efficiency(const JobInputs& in, double measured, std::optional<double> logged_dp_s,
                                          const Calibration* base) {
  ComputeFit fit;
  fit.measured_step_s = measured;
  fit.gpu = in.cluster.device(in.layout.gpu_of_rank.front()).model;
  fit.arch = gpu_arch_of(in.cluster, in.layout.gpu_of_rank.front());
  fit.calibration = base ? *base : in.model.calibration;
  fit.efficiency_before = fit.calibration.compute_efficiency[static_cast<size_t>(fit.arch)];
  // The step the fit matches: the model's, with the logged DP time in place of its own. `model`
  // keeps the model's own step, which is what it predicts.
  double model = 0;
  auto step_at = [&](double efficiency) -> Result<double> {
    fit.calibration.compute_efficiency[static_cast<size_t>(fit.arch)] = efficiency;
    Result<JobScore> s = score_with(in, fit.calibration);
    RETURN_IF_ERROR(s);
    model = s->step_s;
    return logged_dp_s ? s->step_s - dp_exposed_s(*s) + *logged_dp_s : s->step_s;
  };
  Result<double> before = step_at(fit.efficiency_before);
  RETURN_IF_ERROR(before);
  fit.predicted_before_s = model;
  Result<double> full = step_at(1);
  RETURN_IF_ERROR(full);
  if (*full > measured)
    return Error{"the measured step (" + format_duration(measured) + ") is shorter than the model's at the kernels' " +
                 "full rates (" + format_duration(*full) + "): the job, layout or cluster given is not the run's"};
  // The step is compute / efficiency plus exposed communication, which shrinks as compute grows
  // to hide it: near linear in 1 / efficiency. Secant steps on it from efficiency 1.
  double x0 = 1, y0 = *full;
  double x1 = 1 / fit.efficiency_before, y1 = *before, model1 = fit.predicted_before_s;
  if (std::abs(x1 - x0) < 1e-9) {
    x1 = 2;
    Result<double> y = step_at(1 / x1);
    RETURN_IF_ERROR(y);
    y1 = *y, model1 = model;
  }
  for (int i = 0; i < 30 && std::abs(y1 / measured - 1) > 1e-5; ++i) {
    const double slope = (y1 - y0) / (x1 - x0);
    double x2 = slope > 0 ? x1 + (measured - y1) / slope : x1 * measured / y1;
    x2 = std::clamp(x2, 1.0, 1 / limits::kMinLinkEfficiency);  // efficiency in the overlay's range
    Result<double> y2 = step_at(1 / x2);
    RETURN_IF_ERROR(y2);
    x0 = x1, y0 = y1, x1 = x2, y1 = *y2, model1 = model;
  }
  fit.efficiency = 1 / x1;
  fit.predicted_step_s = model1;
  fit.calibration.compute_efficiency[static_cast<size_t>(fit.arch)] = fit.efficiency;
  return fit;
}

namespace {

// The efficiency of the link that bounds the DP groups that makes the model's exposed DP time the
// logged one, at the compute `fit` found. Exposure only grows as the link slows, so regula falsi
// (the Illinois variant) on log(efficiency) between kMinFittedLinkEfficiency and 1.
Result<DpSyncFit> fit_dp_sync(const JobInputs& in, const ComputeFit& fit, double logged_s, Calibration& network) {
  DpSyncFit f;
  f.logged_s = logged_s;
  network = fit.calibration;
  Result<JobScore> at_fit = score_with(in, network);
  RETURN_IF_ERROR(at_fit);
  f.model_before_s = f.model_s = dp_exposed_s(*at_fit);
  const ItemScore* slowest = slowest_dp_item(*at_fit);
  if (!slowest) {
    f.not_fitted = "the job has no DP traffic between GPUs";
    return f;
  }
  const Calibration::Slot slot = Calibration::copy_slot(in.cluster, slowest->hot_edge);
  f.link = in.cluster.edge_name(slowest->hot_edge);
  f.key = Calibration::key(slot);
  f.efficiency_before = f.efficiency = network.at(slot);
  // Within 2% or half a millisecond the model already agrees: nothing to fit.
  if (std::abs(f.model_s - logged_s) <= std::max(0.02 * logged_s, 5e-4)) {
    f.not_fitted = "the model's exposed DP time already agrees";
    return f;
  }
  auto excess_at = [&](double log_efficiency) -> Result<double> {
    network.at(slot) = std::exp(log_efficiency);
    Result<JobScore> s = score_with(in, network);
    RETURN_IF_ERROR(s);
    f.model_s = dp_exposed_s(*s);
    return f.model_s - logged_s;
  };
  double lo = std::log(kMinFittedLinkEfficiency), hi = 0;
  Result<double> at_hi = excess_at(hi);
  RETURN_IF_ERROR(at_hi);
  if (*at_hi > 0) {
    f.not_fitted = "even at the link's full rate the model exposes " + format_duration(f.model_s) +
                   ": the run hid more of its DP time than the job file says it can (check its overlap and bucket "
                   "settings)";
  } else {
    Result<double> at_lo = excess_at(lo);
    RETURN_IF_ERROR(at_lo);
    if (*at_lo < 0)
      f.not_fitted = "even at " + format_number(100 * kMinFittedLinkEfficiency, 0) +
                     "% of the link's rate the model exposes only " + format_duration(f.model_s) +
                     ": the run waited on something other than that link (a straggler, or a layout not the one given)";
  }
  if (!f.not_fitted.empty()) {
    network.at(slot) = f.efficiency_before;
    f.model_s = f.model_before_s;
    return f;
  }
  double y_lo = *excess_at(lo), y_hi = *at_hi;
  int side = 0;  // which end moved last, for Illinois' halving
  double x = hi;
  for (int i = 0; i < 40; ++i) {
    x = (lo * y_hi - hi * y_lo) / (y_hi - y_lo);
    Result<double> y = excess_at(x);
    RETURN_IF_ERROR(y);
    if (std::abs(*y) <= 0.005 * logged_s || hi - lo < 1e-4) break;
    if (*y > 0) {
      lo = x, y_lo = *y;
      if (side == -1) y_hi /= 2;
      side = -1;
    } else {
      hi = x, y_hi = *y;
      if (side == 1) y_lo /= 2;
      side = 1;
    }
  }
  f.efficiency = std::exp(x);
  network.at(slot) = f.efficiency;
  return f;
}

}  // namespace

Result<TrainingCalibration> calibrate_training(const TrainingCalibrateOptions& o) {
  if (o.job.empty() || o.cluster.empty()) return Error{"--training-log needs --job and --cluster: the run's job and cluster"};
  Result<std::unique_ptr<JobInputs>> in = job_inputs_load(o.cluster, o.job, o.layout, {.calibration = o.base});
  RETURN_IF_ERROR(in);
  const Job& job = (*in)->job;
  TrainingCalibration run;
  std::vector<double> steps, tflops, dp_syncs;
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
      if (it.dp_sync_s) dp_syncs.push_back(*it.dp_sync_s);
    }
    run.logs.push_back(std::move(*log));
  }
  run.iterations = static_cast<int>(steps.size());
  run.logged_tflops = median(tflops);
  const std::optional<double> logged_dp = dp_syncs.empty() ? std::nullopt : std::optional(median(dp_syncs));
  Result<ComputeFit> fit = fit_compute_efficiency(**in, median(steps), logged_dp);
  RETURN_IF_ERROR(fit);
  if (logged_dp) {
    // The network fitted at this compute, then the compute again on that network: the other
    // kinds' exposure moves with the link too.
    Calibration network;
    Result<DpSyncFit> dp = fit_dp_sync(**in, *fit, *logged_dp, network);
    RETURN_IF_ERROR(dp);
    dp->iterations = static_cast<int>(dp_syncs.size());
    run.dp_sync = std::move(*dp);
    if (run.dp_sync->not_fitted.empty()) {
      const ComputeFit first = std::move(*fit);
      fit = fit_compute_efficiency(**in, first.measured_step_s, logged_dp, &network);
      RETURN_IF_ERROR(fit);
      fit->efficiency_before = first.efficiency_before;  // the user's, before either fit
      fit->predicted_before_s = first.predicted_before_s;
    }
  }
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
  if (const std::optional<DpSyncFit>& d = r.dp_sync) {
    out << "DP synchronisation the step waited for, as logged (all-grads-sync + params-all-gather, "
        << d->iterations << " iterations): " << format_duration(d->logged_s) << "; the model's exposed DP time "
        << format_duration(d->model_before_s);
    if (d->not_fitted.empty())
      out << ", " << format_duration(d->model_s) << " with " << d->key << " " << format_number(d->efficiency, 3)
          << " fitted (was " << format_number(d->efficiency_before, 3) << "; " << d->link
          << " bounds the slowest DP collective)\n";
    else
      out << "; network not fitted: " << d->not_fitted << "\n";
  } else {
    out << "no DP timers in the log (Megatron-LM's --timing-log-level 1 prints them): compute and exposed "
           "communication are fitted as one\n";
  }
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
  if (const std::optional<DpSyncFit>& d = r.dp_sync) {
    nlohmann::json dp = {{"logged_s", d->logged_s},
                         {"iterations", d->iterations},
                         {"model_before_s", d->model_before_s},
                         {"model_s", d->model_s},
                         {"fitted", d->not_fitted.empty()}};
    if (!d->key.empty()) dp.update({{"link", d->link}, {"key", d->key}, {"efficiency_before", d->efficiency_before},
                                    {"efficiency", d->efficiency}});
    if (!d->not_fitted.empty()) dp["not_fitted"] = d->not_fitted;
    j["dp_sync"] = std::move(dp);
  }
  if (!output.empty()) j["output"] = output;
  return j;
}

}  // namespace topoplan

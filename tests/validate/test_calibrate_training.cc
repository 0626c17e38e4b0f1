// calibrate --training-log against logs the model itself wrote: with a known compute efficiency,
// and with a GPU whose matrix products are slower than the table's.
#include "validate/calibrate_training.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support.h"

namespace topoplan {
namespace {

// A 7B-shaped job on 32 H100s (dgx-h100:4), in two layouts, and a GPU option for its compute.
std::string job_text(int tp, int pp, const std::string& compute) {
  return R"({"format": "topoplan-job", "name": "seven",
             "model": {"layers": 32, "hidden": 4096, "ffn_hidden": 11008, "heads": 32, "kv_heads": 32,
                       "vocab": 32000, "swiglu": true},
             "training": {"seq_length": 4096, "micro_batch": 1, "global_batch": 64},
             "parallel": {"tp": )" +
         std::to_string(tp) + R"(, "pp": )" + std::to_string(pp) + R"(, "dp": )" + std::to_string(32 / (tp * pp)) +
         R"(, "sequence_parallel": true, "zero_stage": 1})" + compute + "}";
}

std::string write(const std::filesystem::path& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir / name) << text;
  return (dir / name).string();
}

// The model's score of `job` on dgx-h100:4, with `efficiency` for Hopper (0: the default) and the
// InfiniBand links' efficiency scaled by `net`.
JobScore model_score(const std::string& job, double efficiency = 0, double net = 1) {
  std::unique_ptr<JobInputs> in = std::move(*job_inputs_load("dgx-h100:4", job, "", {}));
  if (efficiency > 0) in->model.calibration.compute_efficiency.fill(efficiency);
  in->model.calibration.efficiency[static_cast<size_t>(LinkKind::NET)] *= net;
  return *score_job(in->cluster, *in->router, in->job, in->layout, in->model.options);
}
double model_step(const std::string& job, double efficiency = 0) { return model_score(job, efficiency).step_s; }

// Megatron-LM's lines for `n` iterations of `step_s`, the first slower (start-up); with
// `dp_sync_s`, each followed by the timers of --timing-log-level 1 with that DP synchronisation.
std::string megatron_log(double step_s, int n, double dp_sync_s = -1) {
  std::string out;
  for (int i = 1; i <= n; ++i) {
    char line[400];
    std::snprintf(line, sizeof line,
                  " [2026-12-01 10:00:00] iteration %8d/ 1000 | elapsed time per iteration (ms): %.1f | global batch "
                  "size: 64 |\n",
                  10 * i, 1e3 * step_s * (i == 1 ? 3 : 1));
    out += line;
    if (dp_sync_s < 0) continue;
    std::snprintf(line, sizeof line,
                  "(min, max) time across ranks (ms):\n    forward-backward ...............................: (%.2f, "
                  "%.2f)\n    all-grads-sync .................................: (%.2f, %.2f)\n",
                  900 * step_s, 950 * step_s, 500 * dp_sync_s, 1e3 * dp_sync_s);
    out += line;
  }
  return out;
}

}  // namespace

TEST_CASE("calibrate --training-log: recovers the compute efficiency a log was written with") {
  const auto dir = test::temp_dir("calibrate-training");
  const std::string job = write(dir, "job.json", job_text(2, 2, ""));
  const double step = model_step(job, 0.5);
  const std::string log = write(dir, "run.log", megatron_log(step, 6));
  const TrainingCalibration run = *calibrate_training({.logs = {log}, .job = job, .cluster = "dgx-h100:4"});
  CHECK(run.iterations == 5);  // the first left out
  CHECK(run.fit.measured_step_s == doctest::Approx(step).epsilon(1e-4));
  CHECK(run.fit.arch == GpuArch::hopper);
  CHECK(run.fit.efficiency == doctest::Approx(0.5).epsilon(0.03));
  CHECK(run.fit.predicted_step_s == doctest::Approx(step).epsilon(1e-3));
  CHECK(run.fit.calibration.compute_efficiency[static_cast<size_t>(GpuArch::ampere)] ==
        calibration_default().compute_efficiency[static_cast<size_t>(GpuArch::ampere)]);
}

TEST_CASE("calibrate --training-log: with DP timers, compute and the network are fitted apart") {
  const auto dir = test::temp_dir("calibrate-training-dp");
  // tp 2, pp 2, dp 8: the DP rings cross InfiniBand. The run's GPUs at 0.6 and its InfiniBand at
  // a quarter of the default's rate, which exposes more of the gradient reduction.
  const std::string job = write(dir, "job.json", job_text(2, 2, ""));
  const JobScore truth = model_score(job, 0.6, 0.25);
  const double dp = truth.by_kind[static_cast<size_t>(TrafficKind::dp)].exposed_s;
  REQUIRE(dp > 2 * model_score(job, 0.6).by_kind[static_cast<size_t>(TrafficKind::dp)].exposed_s);
  const double net = 0.25 * calibration_default().efficiency[static_cast<size_t>(LinkKind::NET)];

  const std::string log = write(dir, "run.log", megatron_log(truth.step_s, 5, dp));
  const TrainingCalibration run = *calibrate_training({.logs = {log}, .job = job, .cluster = "dgx-h100:4"});
  REQUIRE(run.dp_sync);
  CHECK(run.dp_sync->iterations == 4);
  CHECK(run.dp_sync->logged_s == doctest::Approx(dp).epsilon(0.01));
  CHECK(run.dp_sync->not_fitted == "");
  CHECK(run.dp_sync->key == "efficiency.NET");
  CHECK(run.dp_sync->efficiency == doctest::Approx(net).epsilon(0.03));
  CHECK(run.dp_sync->model_s == doctest::Approx(dp).epsilon(0.01));
  CHECK(run.fit.efficiency == doctest::Approx(0.6).epsilon(0.03));
  CHECK(run.fit.predicted_step_s == doctest::Approx(truth.step_s).epsilon(1e-3));
  CHECK(run.fit.calibration.efficiency[static_cast<size_t>(LinkKind::NET)] == doctest::Approx(net).epsilon(0.03));

  // Without the timers the same step is all put on compute: a different efficiency.
  const TrainingCalibration blind = *calibrate_training(
      {.logs = {write(dir, "blind.log", megatron_log(truth.step_s, 5))}, .job = job, .cluster = "dgx-h100:4"});
  CHECK(!blind.dp_sync);
  CHECK(std::abs(blind.fit.efficiency / 0.6 - 1) > 0.01);

  // Less DP time than the model exposes at the link's full rate: said, and the network left alone.
  const TrainingCalibration hid = *calibrate_training(
      {.logs = {write(dir, "hid.log", megatron_log(truth.step_s, 5, 1e-4))}, .job = job, .cluster = "dgx-h100:4"});
  REQUIRE(hid.dp_sync);
  CHECK(hid.dp_sync->not_fitted.find("the run hid more of its DP time than the job file says") != std::string::npos);
  CHECK(hid.fit.calibration.efficiency == calibration_default().efficiency);
  // More than even a twentieth of the link's rate explains: said too.
  const TrainingCalibration odd = *calibrate_training(
      {.logs = {write(dir, "odd.log", megatron_log(3 * truth.step_s, 5, truth.step_s))}, .job = job,
       .cluster = "dgx-h100:4"});
  REQUIRE(odd.dp_sync);
  CHECK(odd.dp_sync->not_fitted.find("the run waited on something other than that link") != std::string::npos);
  CHECK(odd.fit.calibration.efficiency == calibration_default().efficiency);

  const nlohmann::json j = training_calibration_json(run, "");
  CHECK(j["dp_sync"]["key"] == "efficiency.NET");
  CHECK(j["dp_sync"]["fitted"] == true);
  const std::string text = training_calibration_text(run, "");
  CHECK(text.find("with efficiency.NET ") != std::string::npos);
  CHECK(training_calibration_text(blind, "").find("no DP timers in the log") != std::string::npos);
}

TEST_CASE("calibrate --training-log: fitted on a slower GPU, predicts the job's other layouts") {
  const auto dir = test::temp_dir("calibrate-training-slow");
  // The run's GPUs multiply a third slower than the table's H100; the fit sees only its step.
  const std::string slow = R"(, "compute": {"matmul_tflops": 530})";
  const std::string fitted_on = write(dir, "a.json", job_text(2, 2, ""));
  const std::string log = write(dir, "run.log", megatron_log(model_step(write(dir, "a-slow.json", job_text(2, 2, slow))), 4));
  const TrainingCalibration run = *calibrate_training({.logs = {log}, .job = fitted_on, .cluster = "dgx-h100:4"});
  CHECK(run.fit.efficiency < run.fit.efficiency_before);
  const std::string overlay = write(dir, "fitted.json", calibration_to_json(run.fit.calibration).dump());
  // Plain ints: clang before 16 cannot capture structured bindings in CHECK_MESSAGE's lambda.
  for (const std::pair<int, int>& layout : {std::pair{4, 1}, std::pair{1, 4}, std::pair{8, 2}}) {
    const int tp = layout.first, pp = layout.second;
    const double truth = model_step(write(dir, "b-slow.json", job_text(tp, pp, slow)));
    std::unique_ptr<JobInputs> in =
        std::move(*job_inputs_load("dgx-h100:4", write(dir, "b.json", job_text(tp, pp, "")), "", {.calibration = overlay}));
    const double predicted = score_job(in->cluster, *in->router, in->job, in->layout, in->model.options)->step_s;
    CHECK_MESSAGE(std::abs(predicted / truth - 1) <= 0.05, "tp " << tp << " pp " << pp << ": predicted " << predicted
                                                                  << " s, the slower GPU's " << truth << " s");
  }
}

TEST_CASE("calibrate --training-log: the command, its overlay, and bad input") {
  const auto dir = test::temp_dir("calibrate-training-cli");
  const std::string job = write(dir, "job.json", job_text(2, 2, ""));
  const double step = model_step(job, 0.6);
  write(dir, "run.log", megatron_log(step, 3));
  test::RunResult r =
      test::run_topoplan("calibrate --training-log run.log --job job.json --cluster dgx-h100:4 -o fitted.json", dir);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("read 2 iterations from 1 log (Megatron-LM)") != std::string::npos);
  CHECK(r.out.find("fitted hopper compute_efficiency 0.6") != std::string::npos);
  // The overlay scores the run's step back.
  Result<Calibration> fitted = calibration_load((dir / "fitted.json").string());
  REQUIRE(fitted.ok());
  CHECK(fitted->compute_efficiency[static_cast<size_t>(GpuArch::hopper)] == doctest::Approx(0.6).epsilon(0.03));
  r = test::run_topoplan("score --cluster dgx-h100:4 --job job.json --calibration fitted.json --json", dir);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(nlohmann::json::parse(r.out)["step_s"].get<double>() == doctest::Approx(step).epsilon(1e-3));

  r = test::run_topoplan("calibrate --training-log run.log --cluster dgx-h100:4", dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--training-log needs --job and --cluster") != std::string::npos);
  write(dir, "empty.log", "nothing here\n");
  r = test::run_topoplan("calibrate --training-log empty.log --job job.json --cluster dgx-h100:4", dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("empty.log: no training iterations found") != std::string::npos);
  r = test::run_topoplan("calibrate --training-log run.log --job job.json --cluster dgx-h100:4 --skip 5", dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("run.log: 3 iteration lines, and --skip leaves out the first 5") != std::string::npos);
  // A step shorter than the kernels allow is not this job's run.
  write(dir, "fast.log", megatron_log(step / 10, 3));
  r = test::run_topoplan("calibrate --training-log fast.log --job job.json --cluster dgx-h100:4", dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("is shorter than the model's at the kernels' full rates") != std::string::npos);
  r = test::run_topoplan("calibrate --training-log run.log --nccl-tests x.log --job job.json --cluster dgx-h100:4", dir);
  CHECK(r.exit_code == 2);
  r = test::run_topoplan("calibrate --nccl-tests x.log --cluster dgx-h100:4 --job job.json", dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--job and --layout describe a training run: they go with --training-log") != std::string::npos);
}

}  // namespace topoplan

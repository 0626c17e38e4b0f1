#include "validate/training_log.h"

#include <doctest/doctest.h>

namespace topoplan {

TEST_CASE("training log: Megatron-LM's iteration lines") {
  const std::string text =
      "building GPT model ...\n"
      " [2024-07-01 10:00:00] iteration       10/  500000 | consumed samples:        20480 | elapsed time per "
      "iteration (ms): 12504.3 | throughput per GPU (TFLOP/s/GPU): 430.2 | learning rate: 8.000000E-05 | global batch "
      "size:  2048 | lm loss: 1.104E+01 |\n"
      " [2024-07-01 10:02:05] iteration       20/  500000 | consumed samples:        40960 | elapsed time per "
      "iteration (ms): 12490.0 | throughput per GPU (TFLOP/s/GPU): 430.7 |\n";
  const TrainingLog log = *training_log_parse(text, "run.log");
  CHECK(log.format == TrainingLogFormat::megatron);
  REQUIRE(log.iterations.size() == 2);
  CHECK(log.iterations[0].iteration == 10);
  CHECK(log.iterations[0].line == 2);
  CHECK(log.iterations[0].step_s == doctest::Approx(12.5043));
  CHECK(log.iterations[1].tflops_per_gpu == doctest::Approx(430.7));
}

TEST_CASE("training log: Megatron-LM's timers give the DP synchronisation the step waited for") {
  const std::string text =
      "(min, max) time across ranks (ms):\n"
      "    model-and-optimizer-setup ......................: (812.10, 830.55)\n"  // start-up: no iteration yet
      " iteration       10/  500000 | elapsed time per iteration (ms): 1250.3 |\n"
      "(min, max) time across ranks (ms):\n"
      "    forward-backward ...............................: (1180.21, 1190.02)\n"
      "    all-grads-sync .................................: (10.01, 12.50)\n"
      "    params-all-gather ..............................: (3.10, 4.25)\n"
      "    optimizer ......................................: (40.00, 41.00)\n"
      " iteration       20/  500000 | elapsed time per iteration (ms): 1249.0 |\n"
      "[default7]:max time across ranks (ms):\n"
      "[default7]:    all-grads-sync .................................: 11.00\n"
      "saving checkpoint at iteration 20\n"
      " iteration       30/  500000 | elapsed time per iteration (ms): 1248.0 |\n";
  const TrainingLog log = *training_log_parse(text, "run.log");
  REQUIRE(log.iterations.size() == 3);
  REQUIRE(log.iterations[0].dp_sync_s);
  CHECK(*log.iterations[0].dp_sync_s == doctest::Approx(0.01675));  // the max of each, summed
  CHECK(*log.iterations[1].dp_sync_s == doctest::Approx(0.011));
  CHECK(!log.iterations[2].dp_sync_s);  // no timers after it

  CHECK(training_log_parse(" iteration 1/ 10 | elapsed time per iteration (ms): 5.0 |\n"
                           "(min, max) time across ranks (ms):\n"
                           "    all-grads-sync .................................: (1.0, fast)\n",
                           "t.log")
            .error() == "t.log:3: timer all-grads-sync: expected '(min, max)' or 'max' in milliseconds, got 'fast'");
  CHECK(training_log_parse(" iteration 1/ 10 | elapsed time per iteration (ms): 5.0 |\n"
                           "max time across ranks (ms):\n"
                           "    all-grads-sync .................................: -3\n",
                           "u.log")
            .error() == "u.log:3: timer all-grads-sync: expected '(min, max)' or 'max' in milliseconds, got '-3'");
}

TEST_CASE("training log: NeMo 2's and NeMo 1's step timing") {
  const TrainingLog two = *training_log_parse(
      "Training epoch 0, iteration 9/99 | lr: 1.5e-05 | global_batch_size: 512 | global_step: 9 | "
      "reduced_train_loss: 10.9 | train_step_timing in s: 12.34 | consumed_samples: 5120\n",
      "nemo2.log");
  CHECK(two.format == TrainingLogFormat::nemo);
  CHECK(two.iterations.at(0).iteration == 9);
  CHECK(two.iterations.at(0).step_s == doctest::Approx(12.34));
  const TrainingLog one = *training_log_parse(
      "Epoch 0: :  10%|# | 10/100 [02:03<18:27, reduced_train_loss=10.90, global_step=9.000, consumed_samples=5120.0, "
      "train_step_timing in s=12.30]\n",
      "nemo1.log");
  CHECK(one.iterations.at(0).iteration == 9);
  CHECK(one.iterations.at(0).step_s == doctest::Approx(12.30));
}

TEST_CASE("training log: torchtitan's tokens per second, colour codes and thousands separators") {
  const TrainingLog log = *training_log_parse(
      "[rank0]:[titan] 2025-01-20 10:00:00,000 - root - INFO - \x1b[31mstep: 10  \x1b[32mloss:  7.8543  "
      "\x1b[33mmemory: 30.15GiB(38.07%)  \x1b[34mtps: 1,234  \x1b[36mtflops: 345.67  \x1b[35mmfu: 34.95%\x1b[39m\n",
      "titan.log");
  CHECK(log.format == TrainingLogFormat::torchtitan);
  CHECK(log.iterations.at(0).iteration == 10);
  CHECK(log.iterations.at(0).tokens_per_s_per_gpu == 1234);
  CHECK(log.iterations.at(0).step_s == 0);
  CHECK(log.iterations.at(0).tflops_per_gpu == doctest::Approx(345.67));
}

TEST_CASE("training log: malformed logs are errors that name the file and line") {
  CHECK(training_log_parse("loss went down\n", "a.log").error() ==
        "a.log: no training iterations found: expected Megatron-LM's 'elapsed time per iteration (ms):', NeMo's "
        "'train_step_timing in s', or torchtitan's 'step: N ... tps:' lines");
  CHECK(training_log_parse("x\n iteration 1/ 10 | elapsed time per iteration (ms): nan | \n", "b.log").error() ==
        "b.log:2: elapsed time per iteration (ms): expected a positive number, got 'nan'");
  CHECK(training_log_parse(" iteration 1/ 10 | elapsed time per iteration (ms): -5.0 |\n", "c.log").error() ==
        "c.log:1: elapsed time per iteration (ms): expected a positive number, got '-5.0'");
  CHECK(training_log_parse(" iteration 1/ 10 | elapsed time per iteration (ms): 5.0 |\nstep: 2 tps: 100\n", "d.log")
            .error() == "d.log:2: a torchtitan line in a Megatron-LM log; give each run's log as its own file");
  CHECK(training_log_parse(" iteration 1/ 10 | elapsed time per iteration (ms): 5.0 | throughput per GPU "
                           "(TFLOP/s/GPU): inf |\n",
                           "e.log")
            .error() == "e.log:1: throughput per GPU (TFLOP/s/GPU): expected a positive number, got 'inf'");
}

}  // namespace topoplan

// The memory each GPU holds, by hand against Korthikanti et al.'s table 2 and the ZeRO paper's
// figure 1, and on the bundled jobs: those that run fit; a 10M-token sequence and a TP 1 405B do not.
#include "planner/memory.h"

#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "planner/stage_params.h"
#include "tests/support.h"

namespace topoplan {
namespace {

const GpuCompute& h100() {
  static const GpuCompute g = *gpu_compute("H100-SXM5", test::small_job());
  return g;
}

Job load(const std::string& name) {
  Result<Job> j = job_load((test::data_dir() / "jobs" / (name + ".json")).string());
  REQUIRE_MESSAGE(j.ok(), (j ? "" : j.error()));
  return *j;
}

}  // namespace

// test::small_job(): GPT shape (MHA, ffn 4h, GeLU), tp 2 with sequence parallelism, flash
// attention: Korthikanti's 34 s b h / t less the two dropout masks (2 s b h) it has no dropout for.
TEST_CASE("memory: a layer's activations by hand") {
  Job j = test::small_job();
  const double sbh = 2048.0 * 1024;
  CHECK(layer_activation_bytes(j, false) == doctest::Approx(32 * sbh / 2));
  // Without sequence parallelism the norms' and the column GEMMs' inputs stay whole: 4h more of
  // them replicated, Korthikanti's 10 s b h + 24 s b h / t less the masks.
  j.parallel.sequence_parallel = false;
  CHECK(layer_activation_bytes(j, false) == doctest::Approx(8 * sbh + 24 * sbh / 2));
  j.parallel.sequence_parallel = true;
  // The unfused path keeps the softmax's output: 2 bytes per score, a / t heads.
  j.training.attention_backend = AttentionBackend::unfused;
  CHECK(layer_activation_bytes(j, false) == doctest::Approx(32 * sbh / 2 + 2.0 * 8 * 2048 * 2048));
  // Recomputing core attention drops it again; recomputing the MLP keeps only fc1's input.
  j.training.recompute = {Recompute::selective, RecomputeMethod::uniform, 0, {RecomputeModule::core_attn}};
  CHECK(layer_activation_bytes(j, false) == doctest::Approx(32 * sbh / 2));
  j.training.recompute.modules = {RecomputeModule::core_attn, RecomputeModule::mlp};
  CHECK(layer_activation_bytes(j, false) == doctest::Approx((32 - 16) * sbh / 2));
  // fp8: Transformer Engine keeps the four GEMMs' inputs as fp8 (QKV's and fc1's h / t, the
  // projection's h / t, fc2's 4h / t, at 1 byte instead of 2), and flash attention still keeps
  // its bf16 output: 32 - 1 - 1 - 4 + 1 halves.
  j = test::small_job();
  j.training.dtype = Dtype::fp8;
  CHECK(layer_activation_bytes(j, false) == doctest::Approx(27 * sbh / 2));
}

// Rajbhandari et al. (SC20), figure 1: 16 bytes a parameter in mixed precision (fp16 weights and
// gradients, fp32 master and moments), and per GPU over 64 of them 4 + 12/64 with the optimizer
// sharded (ZeRO 1), 2 + 14/64 with gradients too (2), 16/64 with everything (3).
TEST_CASE("memory: model states per parameter as the ZeRO paper counts them") {
  Job j = test::small_job();
  j.training.dtype = Dtype::fp16;
  j.training.grad_reduce_dtype = Dtype::fp16;
  j.parallel.tp = 1;
  j.parallel.expert_tp = 1;
  j.parallel.sequence_parallel = false;
  j.parallel.pp = 1;
  j.parallel.dp = 64;
  j.training.global_batch = 64;
  const double params = stage_params(j, job_stages(j).front(), true, true).dense;
  for (const std::pair<int, double>& zero : {std::pair{0, 16.0}, {1, 4 + 12.0 / 64}, {2, 2 + 14.0 / 64}, {3, 16.0 / 64}}) {
    const int stage = zero.first;  // not a structured binding: clang before 16 cannot capture those
    const double bytes = zero.second;
    j.parallel.zero_stage = stage;
    const StageMemory m = memory_estimate(j, h100()).stages.front();
    CHECK_MESSAGE(m.weights_bytes + m.gradients_bytes + m.optimizer_bytes == doctest::Approx(bytes * params),
                  "ZeRO " << stage);
  }
  // Megatron's estimator: bf16 weights, fp32 main gradients, 6 + 12/dp with the distributed optimizer.
  j.training.dtype = Dtype::bf16;
  j.training.grad_reduce_dtype = Dtype::fp32;
  j.parallel.zero_stage = 1;
  const StageMemory m = memory_estimate(j, h100()).stages.front();
  CHECK(m.weights_bytes + m.gradients_bytes + m.optimizer_bytes == doctest::Approx((6 + 12.0 / 64) * params));
  // Apex's distributed Adam with its state in bf16 (NeMo 1's optim.dtype) and bf16 gradients:
  // 2 + 2 + 6/dp.
  j.training.grad_reduce_dtype = j.training.main_params_dtype = Dtype::bf16;
  j.training.exp_avg_dtype = j.training.exp_avg_sq_dtype = Dtype::bf16;
  const StageMemory narrow = memory_estimate(j, h100()).stages.front();
  CHECK(narrow.weights_bytes + narrow.gradients_bytes + narrow.optimizer_bytes ==
        doctest::Approx((4 + 6.0 / 64) * params));
}

TEST_CASE("memory: micro-batches in flight, 1F1B and interleaved") {
  Job j = load("llama3-70b");  // pp 4, v 5, 32 micro-batches
  MemoryEstimate m = memory_estimate(j, h100());
  // Interleaved: (pp - s - 1) * 2 + (v - 1) * pp + 1 chunks of 1/v of the stage.
  CHECK(m.stages[0].in_flight == doctest::Approx((3 * 2 + 4 * 4 + 1) / 5.0));  // pp + (pp - 1) / v
  CHECK(m.stages[3].in_flight == doctest::Approx((4 * 4 + 1) / 5.0));
  CHECK(m.peak_stage == 0);
  j.parallel.virtual_pipeline_stages = 1;
  m = memory_estimate(j, h100());
  CHECK(m.stages[0].in_flight == 4);  // 1F1B: pp - s before the first backward
  CHECK(m.stages[3].in_flight == 1);
  CHECK(m.stages[0].activations_bytes == doctest::Approx(4 * m.stages[0].activations_per_micro_batch_bytes));
  // Full recomputation keeps each layer's input (sequence-parallel shard), and one layer's
  // activations while backward recomputes it.
  j.training.recompute = {Recompute::full, RecomputeMethod::uniform, 1, {}};
  m = memory_estimate(j, h100());
  const double input = 8192.0 * 8192 / 8 * 2;
  CHECK(m.stages[1].activations_bytes ==
        doctest::Approx(3 * 20 * input + layer_activation_bytes(j, false)));  // stage 1: pp - 1 in flight
}

TEST_CASE("memory: the bundled jobs fit; a 10M-token sequence and a TP 1 405B do not") {
  for (const char* name : {"llama3-405b", "llama3-70b", "deepseek-v3", "mixtral-8x7b"}) {
    const Job j = load(name);
    const MemoryEstimate m = memory_estimate(j, h100());
    CHECK_MESSAGE(m.fits(), name << ": " << memory_text(m, "H100-SXM5"));
    CHECK(memory_over_text(j, h100(), m).empty());
  }
  Job long_seq = load("llama3-405b");
  long_seq.training.seq_length = 10 * 1024 * 1024;
  const MemoryEstimate over = memory_estimate(long_seq, h100());
  CHECK_FALSE(over.fits());
  const std::string text = memory_over_text(long_seq, h100(), over);
  CHECK(text.starts_with("the job does not fit in GPU memory: stage "));
  CHECK(text.find(" over; even full recomputation needs ") != std::string::npos);

  Job tp1 = load("llama3-405b");
  tp1.parallel.tp = 1;
  tp1.parallel.expert_tp = 1;
  tp1.parallel.sequence_parallel = false;
  tp1.parallel.dp = 1024;
  const MemoryEstimate m1 = memory_estimate(tp1, h100());
  CHECK_FALSE(m1.fits());
  const std::string tp1_text = memory_over_text(tp1, h100(), m1);
  CHECK(tp1_text.starts_with("the job does not fit in GPU memory: stage "));
  CHECK(tp1_text.find(" over; ") != std::string::npos);
}

}  // namespace topoplan

namespace topoplan {

TEST_CASE("memory: score reports it, review fails a job over it, plan proposes nothing") {
  const auto dir = test::temp_dir("memory-cli");
  nlohmann::json doc = nlohmann::json::parse(test::read_file(test::data_dir() / "jobs" / "llama3-70b.json"));
  doc["training"]["seq_length"] = 1048576;  // 1M tokens, tp 8 and cp 1: activations far past 80 GB
  std::ofstream(dir / "long.json") << doc.dump();
  const std::string args =
      " --cluster " + (test::data_dir() / "clusters" / "pods-16-h100.json").string() + " --job long.json";
  test::RunResult r = test::run_topoplan("score" + args, dir);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("memory per GPU, at its peak on stage 0: ") != std::string::npos);
  CHECK(r.out.find("[critical] the job does not fit in GPU memory: stage 0: ") != std::string::npos);
  r = test::run_topoplan("score --json" + args, dir);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["memory"]["fits"] == false);
  CHECK(j["memory"]["stages"][0]["total_bytes"].get<double>() > j["memory"]["capacity_bytes"].get<double>());
  std::ofstream hosts(dir / "hosts.txt");
  for (int h = 1; h <= 16; ++h)
    for (int k = 0; k < 8; ++k) hosts << "h" << (h < 10 ? "00" : "0") << h << "\n";
  hosts.close();
  r = test::run_topoplan("review" + args + " --layout hosts.txt", dir);
  CHECK(r.exit_code == 1);
  CHECK(r.out.starts_with("FAIL "));
  r = test::run_topoplan("plan" + args + " -o plan", dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("long.json: the job does not fit in GPU memory: stage 0: ") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "plan"));
  // The bundled job fits, and says how full the GPU is.
  r = test::run_topoplan("score --cluster dgx-h100:16 --job " + (test::data_dir() / "jobs" / "llama3-70b.json").string());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("memory per GPU, at its peak on stage 0: ") != std::string::npos);
  CHECK(r.out.find("does not fit") == std::string::npos);
}

}  // namespace topoplan

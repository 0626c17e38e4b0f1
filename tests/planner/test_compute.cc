#include "planner/compute.h"

#include <doctest/doctest.h>

#include "tests/support.h"

namespace topoplan {

// test::small_job() has the GPT shape of Narayanan et al., whose layer forward is a third of
// 72 b s h^2 (1 + s / 6h).
TEST_CASE("compute: a layer's forward FLOPs match Narayanan et al.'s closed form") {
  Job j = test::small_job();
  LayerFlops f = layer_flops(j, false);
  const double b = 1, s = 2048, h = 1024;
  CHECK(f.total() == doctest::Approx(72 * b * s * h * h * (1 + s / (6 * h)) / 3));
  CHECK(f.attention_core == 4 * b * s * s * h);
  CHECK(f.qkv == 2 * s * h * 3 * h);  // MHA: Q, K and V are h x h each
  CHECK(logit_flops(j) == 2 * s * h * 32000);
  // SwiGLU's gate adds one more h x ffn matrix to fc1.
  j.model.swiglu = true;
  CHECK(layer_flops(j, false).mlp_in == 2 * 2 * s * h * 4096);
}

// Qwen3 decouples the heads' width from hidden: Q and the attention output are heads x head_dim.
TEST_CASE("compute: a head_dim wider than hidden / heads widens Q, the output projection and the scores") {
  Job j = test::small_job();
  j.model.head_dim = 128;  // 16 heads x 128 = 2048 = 2 x hidden
  j.model.kv_heads = 4;
  const LayerFlops f = layer_flops(j, false);
  const double s = 2048, h = 1024;
  CHECK(f.qkv == 2 * s * h * (2048 + 2 * 4 * 128));
  CHECK(f.attention_out == 2 * s * 2048 * h);
  CHECK(f.attention_core == 4 * s * s * 2048);
}

TEST_CASE("compute: MoE layers count top-k routed and the shared experts, and the router") {
  Job j = test::small_job();
  j.model.moe.experts = 8;
  j.model.moe.top_k = 2;
  j.model.moe.ffn_hidden = 512;
  j.model.moe.shared_experts = 1;
  LayerFlops f = layer_flops(j, true);
  const double s = 2048, h = 1024;
  CHECK(f.mlp_in == 2 * s * h * 512 * 3);  // (top-2 + 1 shared) expert fc1, not gated
  CHECK(f.mlp_out == 2 * s * h * 512 * 3);
  CHECK(f.router == 2 * s * h * 8);
}

TEST_CASE("compute: stage times, the slowest stage, bubble and step time by hand") {
  Result<ComputeEstimate> r = compute_estimate(test::small_job(), "H100-SXM5");
  REQUIRE(r.ok());
  const ComputeEstimate& c = *r;
  CHECK(c.gpu.effective_tflops() == doctest::Approx(500));
  REQUIRE(c.stages.size() == 2);
  // Stage 0: 2 layers of 2^36 FLOPs over tp 2 at 5e8 FLOP/us = 137.44 us.
  CHECK(c.stages[0].forward_us == doctest::Approx(2 * 68719476736.0 / 2 / 5e8));
  // Stage 1 adds the logits: 2 * 2048 * 1024 * 32000 / 2 / 5e8 = 134.22 us.
  CHECK(c.stages[1].forward_us == doctest::Approx(c.stages[0].forward_us + 134.217728));
  CHECK(c.stages[1].backward_us == doctest::Approx(2 * c.stages[1].forward_us));
  CHECK(c.slowest_stage == 1);
  CHECK(c.micro_batches == 4);                        // 8 / (1 x dp 2)
  CHECK(c.bubble_fraction == doctest::Approx(0.25));  // (pp - 1) / m
  // Idle share of the step: one bubble of (pp - 1) in m + pp - 1 slots.
  CHECK(c.bubble_idle_fraction == doctest::Approx(1.0 / 5));
  CHECK(c.step_us == doctest::Approx(5 * 3 * c.stages[1].forward_us));  // (m + pp - 1)(f + b)
}

// Korthikanti et al. (MLSys 2023): full recomputation runs each layer's forward again before its
// backward; selective recomputation of the core attention only the scores and weighted values.
TEST_CASE("compute: recomputation adds the recomputed forward to the backward, by hand") {
  Job j = test::small_job();
  const ComputeEstimate none = *compute_estimate(j, "H100-SXM5");
  const double layer_us = 68719476736.0 / 2 / 5e8;  // 2^36 FLOPs over tp 2 at 5e8 FLOP/us
  const double core_us = 4.0 * 2048 * 2048 * 1024 / 2 / 5e8;
  CHECK(none.stages[1].recompute_us == 0);

  j.training.recompute = {Recompute::full, RecomputeMethod::uniform, 1, {}};
  ComputeEstimate c = *compute_estimate(j, "H100-SXM5");
  // Both layers again, not the logits; forward and the step's model FLOPs stay.
  CHECK(c.stages[1].recompute_us == doctest::Approx(2 * layer_us));
  CHECK(c.stages[1].backward_us == doctest::Approx(2 * c.stages[1].forward_us + 2 * layer_us));
  CHECK(c.stages[1].forward_us == doctest::Approx(none.stages[1].forward_us));
  CHECK(c.stages[1].recomputed_layers == 2);
  CHECK(c.model_flops == doctest::Approx(none.model_flops));
  CHECK(c.step_us == doctest::Approx(none.step_us + 5 * 2 * layer_us));  // (m + pp - 1) slots
  // HFU's numerator adds every layer's forward once more, for each of the 8 samples.
  CHECK(none.hardware_flops == doctest::Approx(none.model_flops));
  CHECK(c.hardware_flops == doctest::Approx(c.model_flops + 4 * 68719476736.0 * 8));

  // "block" with 1 layer: the first layer of each of the 2 layers' chunks (v = 1).
  j.training.recompute = {Recompute::full, RecomputeMethod::block, 1, {}};
  c = *compute_estimate(j, "H100-SXM5");
  CHECK(c.stages[0].recompute_us == doctest::Approx(layer_us));
  CHECK(c.stages[0].recomputed_layers == 1);
  // With 2 virtual stages every stage owns 2 chunks of 2 layers: one recomputed in each.
  j.model.layers = 8;
  j.parallel.virtual_pipeline_stages = 2;
  c = *compute_estimate(j, "H100-SXM5");
  CHECK(c.stages[0].recomputed_layers == 2);
  CHECK(c.stages[0].recompute_us == doctest::Approx(2 * layer_us));

  j = test::small_job();
  j.training.recompute = {Recompute::selective, RecomputeMethod::uniform, 0, {RecomputeModule::core_attn}};
  c = *compute_estimate(j, "H100-SXM5");
  CHECK(c.stages[0].recompute_us == doctest::Approx(2 * core_us));
  CHECK(c.stages[0].recomputed_layers == 0);
  // Element-wise modules recompute no matrix products.
  j.training.recompute.modules = {RecomputeModule::layernorm, RecomputeModule::moe_act};
  const ComputeEstimate elementwise = *compute_estimate(j, "H100-SXM5");
  CHECK(elementwise.stages[0].recompute_us == 0);
}

TEST_CASE("compute: selective recomputation of MoE parts counts their matrix products") {
  Job j = test::small_job();
  j.model.moe = {8, 2, 1, {}, 512, 1, 0};
  j.training.recompute = {Recompute::selective, RecomputeMethod::uniform, 0, {RecomputeModule::moe}};
  const LayerFlops moe = layer_flops(j, true), dense = layer_flops(j, false);
  CHECK(recompute_flops(j, moe, true) == doctest::Approx(moe.mlp_in + moe.mlp_out + moe.router));
  CHECK(recompute_flops(j, dense, false) == 0);  // "moe" leaves dense MLPs alone
  j.training.recompute.modules = {RecomputeModule::shared_experts};
  CHECK(recompute_flops(j, moe, true) == doctest::Approx((moe.mlp_in + moe.mlp_out) / 3));  // 1 shared of top-2 + 1
  j.training.recompute.modules = {RecomputeModule::mlp};
  CHECK(recompute_flops(j, dense, false) == doctest::Approx(dense.mlp_in + dense.mlp_out));
  CHECK(recompute_flops(j, moe, true) == 0);
}

// MFU's numerator: 3 x the forward FLOPs of every sample in the global batch.
TEST_CASE("compute: model FLOPs per step by hand") {
  const ComputeEstimate c = *compute_estimate(test::small_job(), "H100-SXM5");
  const double forward = 4 * 68719476736.0 + 2.0 * 2048 * 1024 * 32000;  // per micro-batch of 1 sample
  CHECK(c.model_flops == doctest::Approx(3 * forward * 8));              // global batch 8
}

TEST_CASE("compute: the interleaved schedule divides the bubble by its virtual stages") {
  Job j = test::small_job();
  j.model.layers = 8;
  j.parallel.virtual_pipeline_stages = 2;
  ComputeEstimate c = *compute_estimate(j, "H100-SXM5");
  CHECK(c.bubble_fraction == doctest::Approx(1.0 / 8));
  CHECK(c.bubble_idle_fraction == doctest::Approx(0.5 / 4.5));
  const StageCompute& s = c.slowest();
  CHECK(c.step_us == doctest::Approx((4 + 0.5) * (s.forward_us + s.backward_us)));
}

TEST_CASE("compute: GPU table, overrides and unknown models") {
  Job j = test::small_job();
  j.compute = {};
  GpuRate a100 = *gpu_rate("A100-SXM4", j);
  CHECK(a100.peak_tflops == 312);
  CHECK(a100.achievable_fraction == doctest::Approx(0.52));
  CHECK(gpu_rate("B200-GB200", j)->peak_tflops == 2500);
  CHECK(gpu_rate("B200", j)->peak_tflops == 2250);
  j.training.dtype = Dtype::fp8;
  CHECK(gpu_rate("H100-SXM5", j)->peak_tflops == 1979);
  CHECK(gpu_rate("A100-SXM4", j).error() == "training.dtype: A100-SXM4 has no fp8 tensor cores");
  j.training.dtype = Dtype::bf16;
  CHECK(gpu_rate("MI300X", j).error() ==
        "compute: no compute figures for GPU model 'MI300X'; give compute.peak_tflops and "
        "compute.achievable_fraction in the job file");
  j.compute.peak_tflops = 1300;
  j.compute.achievable_fraction = 0.3;
  GpuRate mi = *gpu_rate("MI300X", j);
  CHECK(mi.effective_tflops() == doctest::Approx(390));
  CHECK(mi.source == "job file");
}

}  // namespace topoplan

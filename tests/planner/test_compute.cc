#include "planner/compute.h"

#include <doctest/doctest.h>

#include "tests/support.h"

namespace topoplan {

// test::small_job() has the GPT shape of Narayanan et al., whose layer forward is a third of
// 72 b s h^2 (1 + s / 6h).
TEST_CASE("compute: a layer's forward FLOPs match Narayanan et al.'s closed form") {
  Job j = test::small_job();
  LayerParts f = layer_flops(j, false);
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
  const LayerParts f = layer_flops(j, false);
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
  LayerParts f = layer_flops(j, true);
  const double s = 2048, h = 1024;
  CHECK(f.mlp_in == 2 * s * h * 512 * 3);  // (top-2 + 1 shared) expert fc1, not gated
  CHECK(f.mlp_out == 2 * s * h * 512 * 3);
  CHECK(f.router == 2 * s * h * 8);
}

// test::small_job() on one GPU: 2048 tokens, hidden 1024, MHA with 16 heads of 64, ffn 4096 not
// gated, tp 2 with sequence parallelism; matmul 500 TFLOPS on 32 SMs, attention 400, HBM 2 TB/s.
TEST_CASE("compute: one layer's kernels by hand") {
  const Job j = test::small_job();
  const GpuCompute g = *gpu_compute("H100-SXM5", j);
  const LayerKernels k = layer_kernels(j, g, false);
  // GEMMs at 5e8 FLOP/us, every output in whole waves of 128 x 256 tiles on 32 SMs.
  CHECK(k.forward.qkv == doctest::Approx(2.0 * 2048 * 1536 * 1024 / 5e8));  // 96 tiles: 3 waves
  CHECK(k.forward.attention_out == doctest::Approx(2.0 * 2048 * 1024 * 512 / 5e8));
  CHECK(k.forward.mlp_in == doctest::Approx(2.0 * 2048 * 2048 * 1024 / 5e8));
  CHECK(k.forward.mlp_out == doctest::Approx(2.0 * 2048 * 1024 * 2048 / 5e8));
  CHECK(k.backward.qkv == doctest::Approx(2 * k.forward.qkv));  // data and weight gradients
  // Causal flash attention: half of 4 b s^2 (heads x head_dim) / tp, at 4e8 FLOP/us; backward 2.5x.
  CHECK(k.forward.attention_core == doctest::Approx(4.0 * 2048 * 2048 * 1024 / 2 / 2 / 4e8));
  CHECK(k.backward.attention_core == doctest::Approx(2.5 * k.forward.attention_core));
  // Elements: norms and residual adds 10 h on 1024 tokens (sequence parallel), RoPE on Q and K
  // (2 x 1024 / tp wide, read and written), the activation (4096 / tp in and out); 2 bytes each at
  // 2e6 bytes/us.
  const double elements = 10.0 * 1024 * 1024 + 2.0 * 2048 / 2 * 2048 + 2.0 * 2048 * 2048;
  CHECK(k.elementwise_forward_us == doctest::Approx(elements * 2 / 2e6));
  CHECK(k.elementwise_backward_us == doctest::Approx(2 * k.elementwise_forward_us));

  // The unfused path: the scores' products at the matmul rate, 13 bytes per score through HBM.
  Job unfused = j;
  unfused.training.attention_backend = AttentionBackend::unfused;
  const double scores = 16.0 / 2 * 2048 * 2048;
  CHECK(layer_kernels(unfused, g, false).forward.attention_core ==
        doctest::Approx(4.0 * 2048 * 2048 * 1024 / 2 / 5e8 + scores * 13 / 2e6));
  // fp8 casts each GEMM's input: 3 bytes per element of 2h + q / tp + ffn / tp per token.
  Job fp8 = j;
  fp8.training.dtype = Dtype::fp8;
  CHECK(layer_kernels(fp8, g, false).elementwise_forward_us ==
        doctest::Approx(k.elementwise_forward_us + 3.0 * 2048 * (2048 + 512 + 2048) / 2e6));
}

TEST_CASE("compute: waves of GEMM tiles over the SMs") {
  CHECK(gemm_wave_efficiency(2048, 1536, 32) == 1);  // 96 tiles of 128 x 256: 3 full waves
  // One 128 x 128 output on 2 SMs: the smallest tile leaves one SM idle.
  CHECK(gemm_wave_efficiency(128, 128, 2) == 0.5);
  // 33 tiles of 128 x 256 on 32 SMs take 2 waves; 128 x 128 tiles (66) take 3 of 32: 66 / 96.
  CHECK(gemm_wave_efficiency(128 * 33, 256, 32) == doctest::Approx(66.0 / 96));
  // Grouped: 8 experts of 100 tokens each pad to 128-row tiles.
  CHECK(gemm_wave_efficiency(100, 256, 8, 8) == doctest::Approx(100.0 / 128));
}

TEST_CASE("compute: stage times, the slowest stage, bubble and step time") {
  const Job j = test::small_job();
  const ComputeEstimate c = *compute_estimate(j, "H100-SXM5");
  const GpuCompute g = *gpu_compute("H100-SXM5", j);
  const LayerKernels layer = layer_kernels(j, g, false), logits = logit_kernels(j, g);
  const double eff = c.efficiency;
  REQUIRE(c.stages.size() == 2);
  CHECK(c.stages[0].forward_us == doctest::Approx(2 * layer.forward_us() / eff));
  CHECK(c.stages[0].backward_us == doctest::Approx(2 * layer.backward_us() / eff));
  // The last stage adds the logits and the loss.
  CHECK(c.stages[1].forward_us == doctest::Approx((2 * layer.forward_us() + logits.forward_us()) / eff));
  CHECK(logits.forward.mlp_out > 2.0 * 2048 * 16000 * 1024 / 5e8);  // 16,000 columns leave a partial wave
  CHECK(c.slowest_stage == 1);
  CHECK(c.micro_batches == 4);                        // 8 / (1 x dp 2)
  CHECK(c.bubble_fraction == doctest::Approx(0.25));  // (pp - 1) / m
  // Idle share of the step: one bubble of (pp - 1) in m + pp - 1 slots.
  CHECK(c.bubble_idle_fraction == doctest::Approx(1.0 / 5));
  // Adam over the last stage's shard: 2 layers and the output layer over tp 2, then over dp 2.
  const double params = (2 * 12.0 * 1024 * 1024 + 32000.0 * 1024) / 2 / 2;
  CHECK(c.stages[1].optimizer_us == doctest::Approx(30 * params / 2e6 / eff));
  {  // bf16 moments and gradients: 2 read + 2 x (4 + 2 + 2) + 2 written.
    Job narrow = j;
    narrow.training.grad_reduce_dtype = narrow.training.exp_avg_dtype = narrow.training.exp_avg_sq_dtype = Dtype::bf16;
    CHECK(compute_estimate(narrow, "H100-SXM5")->stages[1].optimizer_us == doctest::Approx(20 * params / 2e6 / eff));
  }
  const StageCompute& s = c.slowest();
  CHECK(c.step_us == doctest::Approx(5 * (s.forward_us + s.backward_us) + c.stages[1].optimizer_us));
  CHECK(s.gemm_us + s.attention_us + s.elementwise_us == doctest::Approx(s.forward_us + s.backward_us));
  // The calibration's efficiency for the generation divides every kernel's time.
  Calibration half = calibration_default();
  half.compute_efficiency.fill(0.5);
  const ComputeEstimate slow = *compute_estimate(j, "H100-SXM5", half);
  CHECK(slow.efficiency == 0.5);
  CHECK(slow.step_us == doctest::Approx(c.step_us * eff / 0.5));
}

// Korthikanti et al. (MLSys 2023): full recomputation runs each layer's forward again before its
// backward; selective recomputation of the core attention only the scores and weighted values.
TEST_CASE("compute: recomputation adds the recomputed forward to the backward") {
  Job j = test::small_job();
  const ComputeEstimate none = *compute_estimate(j, "H100-SXM5");
  const LayerKernels layer = layer_kernels(j, *gpu_compute("H100-SXM5", j), false);
  const double eff = none.efficiency;
  const double layer_us = layer.forward_us() / eff, core_us = layer.forward.attention_core / eff;
  CHECK(none.stages[1].recompute_us == 0);

  j.training.recompute = {Recompute::full, RecomputeMethod::uniform, 1, {}};
  ComputeEstimate c = *compute_estimate(j, "H100-SXM5");
  // Both layers again, not the logits; forward and the step's model FLOPs stay.
  CHECK(c.stages[1].recompute_us == doctest::Approx(2 * layer_us));
  CHECK(c.stages[1].backward_us == doctest::Approx(none.stages[1].backward_us + 2 * layer_us));
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
  const LayerParts moe = layer_flops(j, true), dense = layer_flops(j, false);
  CHECK(recomputed(j, moe, true) == doctest::Approx(moe.mlp_in + moe.mlp_out + moe.router));
  CHECK(recomputed(j, dense, false) == 0);  // "moe" leaves dense MLPs alone
  j.training.recompute.modules = {RecomputeModule::shared_experts};
  CHECK(recomputed(j, moe, true) == doctest::Approx((moe.mlp_in + moe.mlp_out) / 3));  // 1 shared of top-2 + 1
  j.training.recompute.modules = {RecomputeModule::mlp};
  CHECK(recomputed(j, dense, false) == doctest::Approx(dense.mlp_in + dense.mlp_out));
  CHECK(recomputed(j, moe, true) == 0);
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
  CHECK(c.step_us == doctest::Approx((4 + 0.5) * (s.forward_us + s.backward_us) + s.optimizer_us));
}

TEST_CASE("compute: GPU table, overrides and unknown models") {
  Job j = test::small_job();
  j.compute = {};
  const GpuCompute a100 = *gpu_compute("A100-SXM4", j);
  CHECK(a100.peak_tflops == 312);
  CHECK(a100.matmul_tflops == doctest::Approx(312 * 0.869));
  CHECK(a100.hbm_GBps == 2039);
  CHECK(a100.sms == 108);
  CHECK(a100.arch == GpuArch::ampere);
  CHECK(gpu_compute("B200-GB200", j)->peak_tflops == 2500);
  CHECK(gpu_compute("B200", j)->peak_tflops == 2250);
  j.training.dtype = Dtype::fp8;
  const GpuCompute h100 = *gpu_compute("H100-SXM5", j);
  CHECK(h100.peak_tflops == 1979);
  CHECK(h100.matmul_tflops == doctest::Approx(1979 * 0.709));
  CHECK(h100.attention_tflops == doctest::Approx(989 * 0.6));  // flash attention stays in bf16
  CHECK(gpu_compute("A100-SXM4", j).error() == "training.dtype: A100-SXM4 has no fp8 tensor cores");
  j.training.dtype = Dtype::bf16;
  CHECK(gpu_compute("MI300X", j).error() ==
        "compute: no compute figures for GPU model 'MI300X'; give compute.peak_tflops, matmul_tflops, "
        "attention_tflops, hbm_GBps, sms and memory in the job file");
  j.compute = {1300, 900, 600, 5300, 304, 192.0 * (1 << 30)};
  const GpuCompute mi = *gpu_compute("MI300X", j);
  CHECK(mi.matmul_tflops == 900);
  CHECK(mi.memory_bytes == 192.0 * (1 << 30));
  CHECK(a100.memory_bytes == 81920.0 * (1 << 20));
  CHECK(mi.source == "job file");
  // A new peak alone keeps the table's ceiling as the same share of it.
  j.compute = {};
  j.compute.peak_tflops = 900;
  CHECK(gpu_compute("H100-SXM5", j)->matmul_tflops == doctest::Approx(900 * 0.803));
  j.compute.matmul_tflops = 950;
  CHECK(gpu_compute("H100-SXM5", j).error() == "compute.matmul_tflops: 950 is above the peak of 900 TFLOPS");
}

}  // namespace topoplan

// How long one training step computes, estimated from the model's FLOPs: per layer forward and
// backward time over the GPU's dense peak times an achievable fraction, and the pipeline bubble of
// the schedule. It is deliberately simple; it decides which communication hides behind compute
// and gives a step time to set the exposed communication beside (docs/model.md, "Compute").
#pragma once

#include <string>
#include <vector>

#include "planner/job.h"

namespace topoplan {

// Forward FLOPs of one micro-batch through one layer, the whole tensor/context-parallel group's
// work (divide by tp * cp for one GPU). Narayanan et al., SC21, section 5.1: two FLOPs per
// multiply-add; attention scores and the weighted sum 2*b*s^2*h each, causal mask not discounted.
struct LayerFlops {
  double qkv = 0, attention_out = 0;  // projections
  double attention_core = 0;          // scores and weighted values
  double mlp_in = 0, mlp_out = 0;     // fc1 (gate and up) and fc2; routed (top-k) and shared experts
  double router = 0;
  double total() const { return qkv + attention_out + attention_core + mlp_in + mlp_out + router; }
};
LayerFlops layer_flops(const Job& job, bool moe_layer);
// The forward FLOPs of one layer that recomputation runs again in backward (matrix products only:
// moe_act, layernorm and mla_up_proj recompute element-wise work and count zero).
double recompute_flops(const Job& job, const LayerFlops& f, bool moe_layer);

// The output layer (logits) of one micro-batch, on the last stage.
double logit_flops(const Job& job);

// Dense peak and the fraction of it a large training run sustains, per GPU model.
struct GpuRate {
  std::string model;       // the GPU model it was matched from
  double peak_tflops = 0;  // dense, at the job's dtype
  double achievable_fraction = 0;
  std::string source;  // where the default came from, or "job file"
  double effective_tflops() const { return peak_tflops * achievable_fraction; }
};
// Table defaults by model prefix, then the job's overrides. An error for an unknown model without
// a peak_tflops override, or fp8 on a GPU without fp8 tensor cores.
Result<GpuRate> gpu_rate(const std::string& gpu_model, const Job& job);

// One pipeline stage's compute per micro-batch on one GPU, microseconds.
struct StageCompute {
  // backward = 2 x forward (weights and inputs) + recompute_us: the forward work activation
  // recomputation runs again at the start of each layer's backward.
  double forward_us = 0, backward_us = 0, recompute_us = 0;
  double attention_core_forward_us = 0;  // what context-parallel K/V exchange overlaps with
  // The column-parallel GEMMs (QKV, fc1) whose backward Megatron overlaps TP's input re-gather
  // and input-gradient reduction with; forward time, the backward's dgrad and wgrad each match it.
  double column_gemm_forward_us = 0;
  // The row-parallel GEMMs (attention output, fc2): with tp_comm_overlap the reduce-scatter after
  // them in forward and the all-gather before their backward run under them.
  double row_gemm_forward_us = 0;
  int layers = 0, moe_layers = 0;
  // Layers full recomputation runs forward again (all with "uniform", the first
  // recompute_num_layers of each model chunk with "block"); 0 without full recomputation.
  int recomputed_layers = 0;
};

struct ComputeEstimate {
  GpuRate gpu;
  std::vector<StageCompute> stages;  // per physical pipeline stage
  int slowest_stage = 0;
  int micro_batches = 0;
  // Bubble time over ideal compute time: (pp - 1) / (v * m) (Narayanan et al., SC21, sections
  // 2.2.1-2.2.2). It exceeds 1 when there are fewer micro-batches than stages.
  double bubble_fraction = 0;
  // The bubble's share of the whole step, what a person reads as "idle": (pp - 1) / (v * m + pp - 1).
  double bubble_idle_fraction = 0;
  // (m + (pp - 1) / v) * (forward + backward) of the slowest stage.
  double step_us = 0;
  // The model's FLOPs per step over all GPUs, forward and backward without recomputation
  // (3 x forward): what MFU counts (Narayanan et al., SC21, appendix; PaLM, Chowdhery et al. 2022).
  double model_flops = 0;
  // model_flops plus the forward work recomputation runs again: what the GPUs execute, what HFU
  // counts (Korthikanti et al., MLSys 2023, section 6; Narayanan et al. report their 52% so).
  double hardware_flops = 0;
  const StageCompute& slowest() const { return stages[static_cast<size_t>(slowest_stage)]; }
  // What recomputation adds to the slowest stage's step: every micro-batch's recomputed forward.
  double recompute_step_us() const { return slowest().recompute_us * micro_batches; }
};
Result<ComputeEstimate> compute_estimate(const Job& job, const std::string& gpu_model);

}  // namespace topoplan

// One micro-batch through one layer on one GPU, by kernel class: each matrix product against the
// GPU's matmul ceiling in waves of output tiles over its SMs, attention's core by backend, and the
// element-wise work (norms, residual adds, RoPE, the MLP's activation, MoE's token permutation,
// fp8 casts) as bytes at HBM bandwidth. Times are the kernels' own; how much of their rate a
// whole step sustains is the calibration's compute_efficiency (planner/compute.h).
#pragma once

#include "planner/gpu_compute.h"
#include "planner/job.h"

namespace topoplan {

// A layer's parts, in FLOPs or in microseconds.
struct LayerParts {
  double qkv = 0, attention_out = 0;  // projections
  double attention_core = 0;          // scores and weighted values
  double mlp_in = 0, mlp_out = 0;     // fc1 (gate and up) and fc2; routed (top-k) and shared experts
  double router = 0;
  double total() const { return qkv + attention_out + attention_core + mlp_in + mlp_out + router; }
  double column_gemms() const { return qkv + mlp_in; }   // column-parallel: QKV, fc1
  double row_gemms() const { return attention_out + mlp_out; }  // row-parallel: attention out, fc2
};

// Forward FLOPs of one micro-batch through one layer, the whole tensor/context-parallel group's
// work (divide by tp * cp for one GPU). Narayanan et al., SC21, section 5.1: two FLOPs per
// multiply-add; attention scores and the weighted sum 2*b*s^2*h each, causal mask not discounted
// (the convention MFU is reported in).
LayerParts layer_flops(const Job& job, bool moe_layer);
// The output layer (logits) of one micro-batch, on the last stage.
double logit_flops(const Job& job);
// The parts of `forward` (FLOPs or time) that recomputation runs again in backward: matrix
// products and attention (moe_act, layernorm and mla_up_proj recompute element-wise work only,
// which this counts as nothing).
double recomputed(const Job& job, const LayerParts& forward, bool moe_layer);

struct LayerKernels {
  LayerParts forward;  // microseconds per part
  double elementwise_forward_us = 0;
  LayerParts backward;  // microseconds per part: data and weight gradients; attention's backward
  double elementwise_backward_us = 0;
  double forward_us() const { return forward.total() + elementwise_forward_us; }
  double backward_us() const { return backward.total() + elementwise_backward_us; }
};
LayerKernels layer_kernels(const Job& job, const GpuCompute& gpu, bool moe_layer);
// The output layer and the loss on the last stage, one micro-batch.
LayerKernels logit_kernels(const Job& job, const GpuCompute& gpu);

// The fraction of `sms` x waves a GEMM's output (groups of m x n, as a grouped GEMM runs experts)
// keeps busy on the best of the tile shapes cuBLAS chooses among: partial tiles and a last partial
// wave idle the rest.
double gemm_wave_efficiency(double m, double n, int sms, double groups = 1);

}  // namespace topoplan

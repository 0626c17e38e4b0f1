#include "planner/layer_kernels.h"

#include <algorithm>
#include <cmath>

namespace topoplan {
namespace {

double gated(const Job& job) { return job.model.swiglu ? 3.0 : 2.0; }

// Bytes of an activation element: bf16 unless the job trains in fp32 (fp8 training keeps bf16
// activations between kernels, Transformer Engine's default).
double activation_bytes(const Job& job) { return job.training.dtype == Dtype::fp32 ? 4 : 2; }

// Megatron's unfused attention per score: QK^T writes it (2 bytes), the fused scale-mask-softmax
// reads and writes it (4), dropout reads it and writes it and its mask (5), the product with V
// reads it (2); backward reads the probabilities and their gradient and writes one through the
// product, dropout and softmax (17).
constexpr double kUnfusedScoreBytesForward = 13, kUnfusedScoreBytesBackward = 17;
// Flash attention's backward recomputes the scores: 5 matrix products to forward's 2 (Dao,
// FlashAttention-2, section 3.1.2).
constexpr double kFlashBackwardOverForward = 2.5;
// One GEMM on one GPU: output m x n in `groups` groups, reduction k; forward, data gradient
// (output m x k) and weight gradient (output n x k), microseconds.
struct Gemm {
  double m = 0, n = 0, k = 0, groups = 1;
};

double gemm_us(const GpuCompute& g, double out_m, double out_n, double flops, double groups) {
  if (flops <= 0) return 0;
  return flops / (g.matmul_tflops * 1e6 * gemm_wave_efficiency(out_m, out_n, g.sms, groups));
}
double forward_us(const GpuCompute& g, const Gemm& x) {
  return gemm_us(g, x.m, x.n, 2 * x.m * x.n * x.k * x.groups, x.groups);
}
double backward_us(const GpuCompute& g, const Gemm& x) {
  const double flops = 2 * x.m * x.n * x.k * x.groups;
  return gemm_us(g, x.m, x.k, flops, x.groups) + gemm_us(g, x.n, x.k, flops, x.groups);
}

}  // namespace

double gemm_wave_efficiency(double m, double n, int sms, double groups) {
  if (m <= 0 || n <= 0 || sms <= 0) return 1;
  // Hopper's and Ampere's cuBLAS tiles for large bf16 and fp8 GEMMs (CUTLASS's default shapes).
  constexpr double kTiles[][2] = {{128, 256}, {256, 128}, {128, 128}};
  double best = 0;
  for (const auto& t : kTiles) {
    const double tiles = groups * std::ceil(m / t[0]) * std::ceil(n / t[1]);
    const double waves = std::ceil(tiles / sms);
    best = std::max(best, groups * m * n / (waves * sms * t[0] * t[1]));
  }
  return best;
}

LayerParts layer_flops(const Job& job, bool moe_layer) {
  const ModelShape& m = job.model;
  const double tokens = static_cast<double>(job.training.micro_batch) * job.training.seq_length;
  // Q and the attention output are heads x head_dim wide, K and V kv_heads x head_dim.
  const double h = m.hidden, q = static_cast<double>(m.heads) * m.head_dim;
  LayerParts f;
  f.qkv = 2 * tokens * h * (q + 2.0 * m.kv_heads * m.head_dim);
  f.attention_out = 2 * tokens * q * h;
  f.attention_core = 4 * tokens * job.training.seq_length * q;
  const double ffn =
      moe_layer ? static_cast<double>(m.moe.ffn_hidden) * (m.moe.top_k + m.moe.shared_experts) : m.ffn_hidden;
  f.mlp_in = 2 * tokens * h * ffn * (gated(job) - 1);
  f.mlp_out = 2 * tokens * h * ffn;
  if (moe_layer) f.router = 2 * tokens * h * m.moe.experts;
  return f;
}

double logit_flops(const Job& job) {
  return 2.0 * job.training.micro_batch * job.training.seq_length * job.model.hidden * job.model.vocab;
}

double recomputed(const Job& job, const LayerParts& f, bool moe_layer) {
  const RecomputeSpec& r = job.training.recompute;
  if (r.granularity == Recompute::full) return f.total();
  double out = 0;
  if (r.recomputes(RecomputeModule::core_attn)) out += f.attention_core;
  const double mlp = f.mlp_in + f.mlp_out;
  if (!moe_layer && r.recomputes(RecomputeModule::mlp)) out += mlp;
  if (moe_layer && r.recomputes(RecomputeModule::moe)) {
    out += mlp + f.router;  // Megatron's MoELayer holds the shared experts too
  } else if (moe_layer && r.recomputes(RecomputeModule::shared_experts)) {
    const MoeShape& moe = job.model.moe;
    out += mlp * moe.shared_experts / (moe.top_k + moe.shared_experts);
  }
  return out;
}

LayerKernels layer_kernels(const Job& job, const GpuCompute& g, bool moe_layer) {
  const ModelShape& m = job.model;
  const Parallelism& p = job.parallel;
  const double t = p.tp, etp = p.expert_tp;
  // Tokens of one micro-batch on one GPU: context parallelism splits the sequence; sequence
  // parallelism gathers the tensor-parallel group's shards before the column GEMMs.
  const double tokens = static_cast<double>(job.training.micro_batch) * job.training.seq_length / p.cp;
  const double h = m.hidden, q = static_cast<double>(m.heads) * m.head_dim, kv = 2.0 * m.kv_heads * m.head_dim;
  LayerKernels out;
  auto both = [&](double LayerParts::*part, const Gemm& x) {
    out.forward.*part += forward_us(g, x);
    out.backward.*part += backward_us(g, x);
  };
  both(&LayerParts::qkv, {tokens, (q + kv) / t, h});
  both(&LayerParts::attention_out, {tokens, h, q / t});
  double ffn_per_gpu = 0;  // fc2's input width on this GPU, all experts' tokens counted
  if (!moe_layer) {
    both(&LayerParts::mlp_in, {tokens, (gated(job) - 1) * m.ffn_hidden / t, h});
    both(&LayerParts::mlp_out, {tokens, h, m.ffn_hidden / t});
    ffn_per_gpu = m.ffn_hidden / t;
  } else {
    const MoeShape& e = m.moe;
    // Balanced routing: each GPU's experts get top_k expert-tensor-parallel shards of its tokens.
    const double local = static_cast<double>(e.experts) / p.ep;
    const double per_expert = tokens * e.top_k * etp / t / local;
    both(&LayerParts::mlp_in, {per_expert, (gated(job) - 1) * e.ffn_hidden / etp, h, local});
    both(&LayerParts::mlp_out, {per_expert, h, e.ffn_hidden / etp, local});
    const double shared = static_cast<double>(e.ffn_hidden) * e.shared_experts / t;
    if (shared > 0) {
      both(&LayerParts::mlp_in, {tokens, (gated(job) - 1) * shared, h});
      both(&LayerParts::mlp_out, {tokens, h, shared});
    }
    both(&LayerParts::router, {tokens, static_cast<double>(e.experts), h});
    ffn_per_gpu = (tokens * e.top_k * e.ffn_hidden / t + tokens * shared) / tokens;
  }

  // Attention's core: causal flash kernels skip the masked half of the scores; the unfused path
  // computes them all at the matmul rate and moves each score through HBM.
  const double s = job.training.seq_length;
  const double core_flops = 4 * job.training.micro_batch * s * s * q / (t * p.cp);
  const double scores = job.training.micro_batch * (m.heads / t) * s * s / p.cp;
  if (job.training.attention_backend == AttentionBackend::flash) {
    out.forward.attention_core = core_flops / 2 / (g.attention_tflops * 1e6);
    out.backward.attention_core = kFlashBackwardOverForward * out.forward.attention_core;
  } else {
    out.forward.attention_core = core_flops / (g.matmul_tflops * 1e6) + scores * kUnfusedScoreBytesForward / (g.hbm_GBps * 1e3);
    out.backward.attention_core =
        2 * core_flops / (g.matmul_tflops * 1e6) + scores * kUnfusedScoreBytesBackward / (g.hbm_GBps * 1e3);
  }

  // Element-wise work, elements read and written: two norms (h in, h out each) and two residual
  // adds (2h in, h out each) on the sequence-parallel shard, RoPE on Q and K, the activation
  // (gated: two inputs, one output), MoE's permutation and un-permutation of each routed copy.
  const double sp_tokens = p.sequence_parallel ? tokens / t : tokens;
  double elements = 10 * h * sp_tokens + 2 * (q + kv / 2) / t * tokens + gated(job) * ffn_per_gpu * tokens;
  if (moe_layer) elements += 4 * h * tokens * m.moe.top_k / t;
  double bytes = elements * activation_bytes(job);
  // fp8 GEMMs cast their inputs first (read bf16, write fp8): QKV's, attention out's, fc1's, fc2's.
  if (job.training.dtype == Dtype::fp8) bytes += 3 * tokens * (2 * h + q / t + ffn_per_gpu);
  out.elementwise_forward_us = bytes / (g.hbm_GBps * 1e3);
  // Backward reads the saved input and the incoming gradient and writes the outgoing one.
  out.elementwise_backward_us = 2 * out.elementwise_forward_us;
  return out;
}

LayerKernels logit_kernels(const Job& job, const GpuCompute& g) {
  const Parallelism& p = job.parallel;
  const double tokens = static_cast<double>(job.training.micro_batch) * job.training.seq_length / p.cp;
  const double vocab = static_cast<double>(job.model.vocab) / p.tp;
  LayerKernels out;
  const Gemm logits{tokens, vocab, static_cast<double>(job.model.hidden)};
  out.forward.mlp_out = forward_us(g, logits);
  out.backward.mlp_out = backward_us(g, logits);
  // Cross-entropy over the vocabulary shard in fp32: each logit read (2 bytes) and its
  // probability written (4); backward the reverse.
  out.elementwise_forward_us = tokens * vocab * 6 / (g.hbm_GBps * 1e3);
  out.elementwise_backward_us = out.elementwise_forward_us;
  return out;
}

}  // namespace topoplan

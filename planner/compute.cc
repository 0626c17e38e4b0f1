#include "planner/compute.h"

#include <algorithm>
#include <cmath>

namespace topoplan {
namespace {

struct GpuEntry {
  const char* prefix;
  double bf16_tflops;  // dense
  double fp8_tflops;   // dense; 0 = no fp8 tensor cores
  double fraction;     // of the peak a large training run sustains (GpuRate::achievable_fraction)
  const char* source;
};

// Dense peaks from NVIDIA's datasheets (A100, H100 SXM, H200, HGX B200, GB200 NVL72: 180 PF bf16
// over 72 GPUs, L40S). Fractions: A100 52% (Narayanan et al., SC21, 3,072 GPUs); Hopper 40%
// (Llama 3 paper, Dubey et al. 2024, table 4: 38-43% BF16 MFU on 16K H100); Blackwell and L40S
// are assumptions, below Hopper, until published runs say otherwise. First matching prefix wins.
constexpr GpuEntry kGpus[] = {
    {.prefix = "A100",
     .bf16_tflops = 312,
     .fp8_tflops = 0,
     .fraction = 0.52,
     .source = "A100 datasheet; 52% as Narayanan et al. SC21 measured"},
    {.prefix = "H100",
     .bf16_tflops = 989,
     .fp8_tflops = 1979,
     .fraction = 0.40,
     .source = "H100 SXM datasheet; 40% as the Llama 3 paper reports"},
    {.prefix = "H200",
     .bf16_tflops = 989,
     .fp8_tflops = 1979,
     .fraction = 0.40,
     .source = "H200 datasheet; 40% as on H100"},
    {.prefix = "B200-GB200",
     .bf16_tflops = 2500,
     .fp8_tflops = 5000,
     .fraction = 0.35,
     .source = "GB200 NVL72 datasheet; 35% assumed"},
    {.prefix = "GB200",
     .bf16_tflops = 2500,
     .fp8_tflops = 5000,
     .fraction = 0.35,
     .source = "GB200 NVL72 datasheet; 35% assumed"},
    {.prefix = "B200",
     .bf16_tflops = 2250,
     .fp8_tflops = 4500,
     .fraction = 0.35,
     .source = "HGX B200 datasheet; 35% assumed"},
    {.prefix = "L40S",
     .bf16_tflops = 362,
     .fp8_tflops = 733,
     .fraction = 0.40,
     .source = "L40S datasheet; 40% assumed"},
};

double gated(const Job& job) { return job.model.swiglu ? 3.0 : 2.0; }

}  // namespace

LayerFlops layer_flops(const Job& job, bool moe_layer) {
  const ModelShape& m = job.model;
  const double tokens = static_cast<double>(job.training.micro_batch) * job.training.seq_length;
  // Q and the attention output are heads x head_dim wide, K and V kv_heads x head_dim.
  const double h = m.hidden, q = static_cast<double>(m.heads) * m.head_dim;
  LayerFlops f;
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

double recompute_flops(const Job& job, const LayerFlops& f, bool moe_layer) {
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

double logit_flops(const Job& job) {
  return 2.0 * job.training.micro_batch * job.training.seq_length * job.model.hidden * job.model.vocab;
}

Result<GpuRate> gpu_rate(const std::string& gpu_model, const Job& job) {
  GpuRate r;
  r.model = gpu_model;
  const GpuEntry* entry = nullptr;
  for (const GpuEntry& e : kGpus)
    if (gpu_model.starts_with(e.prefix)) {
      entry = &e;
      break;
    }
  if (entry) {
    if (job.training.dtype == Dtype::fp8 && entry->fp8_tflops == 0 && !job.compute.peak_tflops)
      return Error{"training.dtype: " + gpu_model + " has no fp8 tensor cores"};
    r.peak_tflops = job.training.dtype == Dtype::fp8    ? entry->fp8_tflops
                    : job.training.dtype == Dtype::fp32 ? entry->bf16_tflops / 2  // TF32
                                                        : entry->bf16_tflops;
    r.achievable_fraction = entry->fraction;
    r.source = entry->source;
  } else if (!job.compute.peak_tflops || !job.compute.achievable_fraction) {
    return Error{"compute: no compute figures for GPU model '" + gpu_model +
                 "'; give compute.peak_tflops and compute.achievable_fraction in the job file"};
  }
  if (job.compute.peak_tflops) r.peak_tflops = *job.compute.peak_tflops;
  if (job.compute.achievable_fraction) r.achievable_fraction = *job.compute.achievable_fraction;
  if (job.compute.peak_tflops || job.compute.achievable_fraction)
    r.source = entry ? r.source + ", overridden by the job file" : "job file";
  return r;
}

Result<ComputeEstimate> compute_estimate(const Job& job, const std::string& gpu_model) {
  Result<GpuRate> rate = gpu_rate(gpu_model, job);
  RETURN_IF_ERROR(rate);
  ComputeEstimate out;
  out.gpu = *rate;
  const double per_gpu = job.parallel.tp * job.parallel.cp;
  const double flops_per_us = out.gpu.effective_tflops() * 1e6;  // 1 TFLOP/s = 1e6 FLOP/us
  const LayerFlops dense = layer_flops(job, false), moe = layer_flops(job, true);
  const std::vector<StageLayers> stages = job_stages(job);
  const RecomputeSpec& r = job.training.recompute;
  const double v = job.parallel.virtual_pipeline_stages;
  double forward_flops = 0;    // one micro-batch through the whole model
  double recomputed_flops = 0;  // of it, what backward runs again
  for (size_t s = 0; s < stages.size(); ++s) {
    StageCompute c;
    c.layers = stages[s].count;
    c.moe_layers = stages[s].moe;
    const int dense_layers = c.layers - c.moe_layers;
    const double layers_flops = dense_layers * dense.total() + c.moe_layers * moe.total();
    double flops = layers_flops;
    if (s + 1 == stages.size()) flops += logit_flops(job);
    forward_flops += flops;
    double recompute = 0;
    if (r.granularity == Recompute::full) {
      // Megatron's TransformerBlock: "block" checkpoints the first recompute_num_layers layers of
      // each model chunk (c.layers / v of them), "uniform" every layer in units of that many.
      const int per_chunk = static_cast<int>(c.layers / v);
      c.recomputed_layers =
          r.method == RecomputeMethod::block ? std::min(r.num_layers, per_chunk) * static_cast<int>(v) : c.layers;
      recompute = c.layers > 0 ? layers_flops * c.recomputed_layers / c.layers : 0;
    } else {
      recompute = dense_layers * recompute_flops(job, dense, false) + c.moe_layers * recompute_flops(job, moe, true);
    }
    // Experts' fc1 is column-parallel only when the experts are tensor-parallel.
    const double moe_column = moe.qkv + (job.parallel.expert_tp > 1 ? moe.mlp_in : 0);
    const double column = dense_layers * (dense.qkv + dense.mlp_in) + c.moe_layers * moe_column;
    const double moe_row = moe.attention_out + (job.parallel.expert_tp > 1 ? moe.mlp_out : 0);
    const double row = dense_layers * (dense.attention_out + dense.mlp_out) + c.moe_layers * moe_row;
    recomputed_flops += recompute;
    c.forward_us = flops / per_gpu / flops_per_us;
    c.recompute_us = recompute / per_gpu / flops_per_us;
    c.backward_us = 2 * c.forward_us + c.recompute_us;
    c.attention_core_forward_us = c.layers * dense.attention_core / per_gpu / flops_per_us;
    c.column_gemm_forward_us = column / per_gpu / flops_per_us;
    c.row_gemm_forward_us = row / per_gpu / flops_per_us;
    out.stages.push_back(c);
  }
  for (size_t s = 1; s < out.stages.size(); ++s)
    if (out.stages[s].forward_us > out.slowest().forward_us) out.slowest_stage = static_cast<int>(s);
  out.micro_batches = job_micro_batches(job);
  const double m = out.micro_batches, pp = job.parallel.pp;
  out.model_flops = 3 * forward_flops * m * job.parallel.dp;
  out.hardware_flops = out.model_flops + recomputed_flops * m * job.parallel.dp;
  out.bubble_fraction = (pp - 1) / (v * m);
  out.bubble_idle_fraction = (pp - 1) / (v * m + pp - 1);
  out.step_us = (m + (pp - 1) / v) * (out.slowest().forward_us + out.slowest().backward_us);
  return out;
}

}  // namespace topoplan

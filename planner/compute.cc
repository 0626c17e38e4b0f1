#include "planner/compute.h"

#include <algorithm>
#include <cmath>

#include "planner/stage_params.h"

namespace topoplan {
namespace {

// Adam's step per parameter updated: reads the gradient, the master weight and both moments,
// writes the last three and the weight the GEMMs read (fp32 weights are their own master); 30
// bytes with fp32 state and gradients and bf16 weights.
double adam_bytes_per_param(const Training& t) {
  const bool fp32 = t.dtype == Dtype::fp32;
  const double master = fp32 ? 4 : dtype_bytes(t.main_params_dtype);
  const double state = master + dtype_bytes(t.exp_avg_dtype) + dtype_bytes(t.exp_avg_sq_dtype);
  return dtype_bytes(t.grad_reduce_dtype) + 2 * state + (fp32 ? 0 : dtype_bytes(Dtype::bf16));
}

// Parameters one GPU of a stage updates: its shard of them with a distributed optimizer (ZeRO
// stage 1 and up), dense over the data- and context-parallel ranks, experts over expert.dp.
double params_updated(const Job& job, const StageLayers& stage, bool first, bool last) {
  const StageParams held = stage_params(job, stage, first, last);
  if (job.parallel.zero_stage == 0) return held.dense + held.expert;
  return held.dense / (job.parallel.dp * job.parallel.cp) + held.expert / job_expert_dp(job);
}

}  // namespace

Result<ComputeEstimate> compute_estimate(const Job& job, const std::string& gpu_model, const Calibration& cal) {
  Result<GpuCompute> gpu = gpu_compute(gpu_model, job);
  RETURN_IF_ERROR(gpu);
  ComputeEstimate out;
  out.gpu = *gpu;
  out.efficiency = cal.compute_efficiency[static_cast<size_t>(out.gpu.arch)];
  out.efficiency_source = cal.source;
  const double eff = out.efficiency;
  const LayerParts dense_flops = layer_flops(job, false), moe_flops = layer_flops(job, true);
  const LayerKernels dense = layer_kernels(job, out.gpu, false);
  const LayerKernels moe = job.model.is_moe() ? layer_kernels(job, out.gpu, true) : LayerKernels{};
  const LayerKernels logits = logit_kernels(job, out.gpu);
  const std::vector<StageLayers> stages = job_stages(job);
  const RecomputeSpec& r = job.training.recompute;
  const double v = job.parallel.virtual_pipeline_stages;
  double forward_flops = 0;     // one micro-batch through the whole model
  double recomputed_flops = 0;  // of it, what backward runs again
  for (size_t s = 0; s < stages.size(); ++s) {
    const bool last = s + 1 == stages.size();
    StageCompute c;
    c.layers = stages[s].count;
    c.moe_layers = stages[s].moe;
    const double dense_layers = c.layers - c.moe_layers, moe_layers = c.moe_layers;
    auto sum = [&](auto&& of) { return dense_layers * of(dense) + moe_layers * of(moe) + (last ? of(logits) : 0.0); };
    const double layers_flops = dense_layers * dense_flops.total() + moe_layers * moe_flops.total();
    forward_flops += layers_flops + (last ? logit_flops(job) : 0);
    double recompute_flops = 0, recompute_us = 0;
    if (r.granularity == Recompute::full) {
      // Megatron's TransformerBlock: "block" checkpoints the first recompute_num_layers layers of
      // each model chunk (c.layers / v of them), "uniform" every layer in units of that many.
      const int per_chunk = static_cast<int>(c.layers / v);
      c.recomputed_layers =
          r.method == RecomputeMethod::block ? std::min(r.num_layers, per_chunk) * static_cast<int>(v) : c.layers;
      const double share = c.layers > 0 ? static_cast<double>(c.recomputed_layers) / c.layers : 0;
      recompute_flops = layers_flops * share;
      recompute_us = share * (dense_layers * dense.forward_us() + moe_layers * moe.forward_us());
    } else {
      recompute_flops =
          dense_layers * recomputed(job, dense_flops, false) + moe_layers * recomputed(job, moe_flops, true);
      recompute_us = dense_layers * recomputed(job, dense.forward, false) + moe_layers * recomputed(job, moe.forward, true);
    }
    recomputed_flops += recompute_flops;
    c.recompute_us = recompute_us / eff;
    c.forward_us = sum([](const LayerKernels& k) { return k.forward_us(); }) / eff;
    c.backward_us = sum([](const LayerKernels& k) { return k.backward_us(); }) / eff + c.recompute_us;
    c.attention_us =
        sum([](const LayerKernels& k) { return k.forward.attention_core + k.backward.attention_core; }) / eff;
    c.elementwise_us =
        sum([](const LayerKernels& k) { return k.elementwise_forward_us + k.elementwise_backward_us; }) / eff;
    c.gemm_us = c.forward_us + c.backward_us - c.recompute_us - c.attention_us - c.elementwise_us;
    c.attention_core_forward_us = (dense_layers * dense.forward.attention_core + moe_layers * moe.forward.attention_core) / eff;
    c.column_gemm_forward_us =
        (dense_layers * dense.forward.column_gemms() + moe_layers * (moe.forward.qkv + (job.parallel.expert_tp > 1 ? moe.forward.mlp_in : 0))) / eff;
    c.row_gemm_forward_us =
        (dense_layers * dense.forward.row_gemms() + moe_layers * (moe.forward.attention_out + (job.parallel.expert_tp > 1 ? moe.forward.mlp_out : 0))) / eff;
    c.optimizer_us =
        adam_bytes_per_param(job.training) * params_updated(job, stages[s], s == 0, last) / (out.gpu.hbm_GBps * 1e3) / eff;
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
  double optimizer_us = 0;
  for (const StageCompute& c : out.stages) optimizer_us = std::max(optimizer_us, c.optimizer_us);
  out.step_us = (m + (pp - 1) / v) * (out.slowest().forward_us + out.slowest().backward_us) + optimizer_us;
  return out;
}

}  // namespace topoplan

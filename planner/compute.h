// How long one training step computes: each layer's kernels by class (planner/layer_kernels.h)
// at the share of their rates a step sustains (the calibration's compute_efficiency), the
// optimizer's step, and the pipeline bubble of the schedule. It decides which communication hides
// behind compute and gives a step time to set the exposed communication beside (docs/model.md,
// "Compute").
#pragma once

#include <string>
#include <vector>

#include "cost/calibration.h"
#include "planner/gpu_compute.h"
#include "planner/job.h"
#include "planner/layer_kernels.h"

namespace topoplan {

// One pipeline stage's compute per micro-batch on one GPU, microseconds.
struct StageCompute {
  // backward: data and weight gradients, attention's backward + recompute_us: the forward work
  // activation recomputation runs again at the start of each layer's backward.
  double forward_us = 0, backward_us = 0, recompute_us = 0;
  // By kernel class, forward and backward together without the recomputation: matrix products,
  // attention's core, element-wise work.
  double gemm_us = 0, attention_us = 0, elementwise_us = 0;
  double attention_core_forward_us = 0;  // what context-parallel K/V exchange overlaps with
  // The column-parallel GEMMs (QKV, fc1) whose backward Megatron overlaps TP's input re-gather
  // and input-gradient reduction with; forward time, the backward's dgrad and wgrad each match it.
  double column_gemm_forward_us = 0;
  // The row-parallel GEMMs (attention output, fc2): with tp_comm_overlap the reduce-scatter after
  // them in forward and the all-gather before their backward run under them.
  double row_gemm_forward_us = 0;
  // The optimizer's step once per training step over the parameters this GPU updates (its
  // shard with a distributed optimizer): memory-bound Adam.
  double optimizer_us = 0;
  int layers = 0, moe_layers = 0;
  // Layers full recomputation runs forward again (all with "uniform", the first
  // recompute_num_layers of each model chunk with "block"); 0 without full recomputation.
  int recomputed_layers = 0;
};

struct ComputeEstimate {
  GpuCompute gpu;
  // The share of the kernels' own rates a training step sustains on this GPU generation, and
  // where it came from (the calibration's compute_efficiency).
  double efficiency = 1;
  std::string efficiency_source;
  std::vector<StageCompute> stages;  // per physical pipeline stage
  int slowest_stage = 0;
  int micro_batches = 0;
  // Bubble time over ideal compute time: (pp - 1) / (v * m) (Narayanan et al., SC21, sections
  // 2.2.1-2.2.2). It exceeds 1 when there are fewer micro-batches than stages.
  double bubble_fraction = 0;
  // The bubble's share of the whole step, what a person reads as "idle": (pp - 1) / (v * m + pp - 1).
  double bubble_idle_fraction = 0;
  // (m + (pp - 1) / v) * (forward + backward) of the slowest stage, then the slowest optimizer step.
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
Result<ComputeEstimate> compute_estimate(const Job& job, const std::string& gpu_model,
                                         const Calibration& calibration = calibration_default());

}  // namespace topoplan

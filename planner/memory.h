// What one GPU of each pipeline stage holds at its peak: the model states (weights, gradients,
// optimizer states, each as the job's ZeRO stage shards them) and the activations of the
// micro-batches its schedule keeps in flight (Korthikanti et al., "Reducing Activation
// Recomputation in Large Transformer Models", MLSys 2023, table 2, for today's layers; Megatron-
// LM's megatron/training/theoretical_memory_usage.py for the states and the in-flight count).
// docs/model.md, "Memory".
#pragma once

#include <string>
#include <vector>

#include "planner/gpu_compute.h"
#include "planner/job.h"

namespace topoplan {

struct StageMemory {
  double weights_bytes = 0, gradients_bytes = 0, optimizer_bytes = 0;
  double activations_bytes = 0;  // every micro-batch in flight
  // Micro-batches whose activations the stage holds at once, in whole-stage units (an interleaved
  // schedule holds chunks of several).
  double in_flight = 0;
  double activations_per_micro_batch_bytes = 0;
  double total_bytes() const { return weights_bytes + gradients_bytes + optimizer_bytes + activations_bytes; }
};

struct MemoryEstimate {
  std::vector<StageMemory> stages;  // per physical pipeline stage
  int peak_stage = 0;
  double capacity_bytes = 0;  // the GPU's memory
  const StageMemory& peak() const { return stages[static_cast<size_t>(peak_stage)]; }
  bool fits() const { return peak().total_bytes() <= capacity_bytes; }
};

MemoryEstimate memory_estimate(const Job& job, const GpuCompute& gpu);

// "stage 0: 61.2 GiB of the H100-SXM5's 79.6 GiB (weights 6.28 GiB, gradients 12.6 GiB, optimizer
// states 0.39 GiB, activations 42 GiB for 15.5 micro-batches in flight)"
std::string memory_text(const MemoryEstimate& memory, const std::string& gpu);
// What does not fit, and what the model says would: full recomputation's peak when that fits, or
// that it does not. Empty when the job fits.
std::string memory_over_text(const Job& job, const GpuCompute& gpu, const MemoryEstimate& memory);

// Activation bytes one GPU keeps for one layer and one micro-batch, with the job's parallelism and
// selective recomputation (full recomputation is memory_estimate's: it keeps the layer's input).
double layer_activation_bytes(const Job& job, bool moe_layer);

}  // namespace topoplan

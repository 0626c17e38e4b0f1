// What one GPU's kernels can do, by the classes a training step's time divides into: matrix
// products against the measured matmul ceiling, flash attention at its published rate, and
// element-wise work at HBM bandwidth. Datasheet and measured figures per GPU model, each cited in
// gpu_compute.cc; how much of them a whole step sustains is the calibration's compute_efficiency.
#pragma once

#include <string>

#include "base/error.h"
#include "cost/nccl_tuning.h"
#include "planner/job.h"

namespace topoplan {

struct GpuCompute {
  std::string model;  // the GPU model it was matched from
  GpuArch arch = GpuArch::hopper;
  double peak_tflops = 0;       // dense tensor-core peak at the job's dtype: what MFU divides by
  double matmul_tflops = 0;     // the measured matmul ceiling (MAMF) at the job's dtype
  double attention_tflops = 0;  // flash attention, forward and backward (bf16, also under fp8)
  double hbm_GBps = 0;
  int sms = 0;  // streaming multiprocessors, over which a GEMM's tiles run in waves
  double memory_bytes = 0;  // HBM capacity
  std::string source;  // where the figures came from, or "job file"
};

// The table's figures for `gpu_model` (first matching prefix), then the job file's compute
// section over them. An error for a model not in the table whose figures the job does not all
// give, or fp8 on a GPU without fp8 tensor cores.
Result<GpuCompute> gpu_compute(const std::string& gpu_model, const Job& job);

}  // namespace topoplan

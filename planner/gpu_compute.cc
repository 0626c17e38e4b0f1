#include "planner/gpu_compute.h"

#include "base/units.h"
#include "topology/gpu_models.h"

namespace topoplan {
namespace {

struct GpuEntry {
  const char* prefix;
  double bf16_tflops, fp8_tflops;          // dense; fp8 0 = no fp8 tensor cores
  double bf16_matmul, fp8_matmul;          // measured matmul ceiling over the dense peak
  double attention;                        // flash attention over the bf16 peak
  double hbm_GBps;
  int sms;
  double memory_MiB;
  const char* source;
};

// Peaks, HBM bandwidth and SM counts from NVIDIA's datasheets and architecture whitepapers (A100
// 80GB SXM, H100 SXM, H200, HGX B200, GB200 NVL72 at 180 PF bf16 over 72 GPUs, L40S). Matmul
// ceilings: the Maximum Achievable Matmul FLOPS table of stas00/ml-engineering
// (compute/accelerator/README.md): A100 bf16 271.2 TFLOPS (86.9 %), H100 bf16 794.5 (80.3 %) and
// fp8 70.9 %, B200 bf16 77.6 % and fp8 76.3 %, GB200 bf16 72.9 % and fp8 72.3 %; H200 is the H100's
// die (its bf16 taken as the H100's; fp8 73.4 % in the table). Flash attention: FlashAttention-2
// (Dao 2023, arXiv:2307.08691) runs forward and backward at 50-73 % of the A100's peak;
// FlashAttention-3 (Shah et al. 2024, arXiv:2407.08608) reaches 75 % of the H100's in forward and
// runs backward 1.5-1.75x faster than FlashAttention-2: 0.6 over forward and backward on both. No
// published figures for L40S's matmul ceiling or Blackwell's attention: the H100's fractions.
// Memory: what nvidia-smi reports as the total (A100 80GB 81,920 MiB, H100 SXM 81,559, H200
// 143,771, B200 183,359, L40S 46,068); GB200 the datasheet's 186 GB.
constexpr GpuEntry kGpus[] = {
    {"A100", 312, 0, 0.869, 0, 0.60, 2039, 108, 81920, "A100 80GB SXM datasheet; MAMF 86.9 % (stas00/ml-engineering)"},
    {"H100", 989, 1979, 0.803, 0.709, 0.60, 3350, 132, 81559, "H100 SXM datasheet; MAMF 80.3 % bf16, 70.9 % fp8"},
    {"H200", 989, 1979, 0.803, 0.734, 0.60, 4800, 132, 143771, "H200 datasheet; MAMF as H100 bf16, 73.4 % fp8"},
    {"B200-GB200", 2500, 5000, 0.729, 0.723, 0.60, 8000, 148, 177383, "GB200 NVL72 datasheet; MAMF 72.9 % bf16, 72.3 % fp8"},
    {"GB200", 2500, 5000, 0.729, 0.723, 0.60, 8000, 148, 177383, "GB200 NVL72 datasheet; MAMF 72.9 % bf16, 72.3 % fp8"},
    {"B200", 2250, 4500, 0.776, 0.763, 0.60, 8000, 148, 183359, "HGX B200 datasheet; MAMF 77.6 % bf16, 76.3 % fp8"},
    {"L40S", 362, 733, 0.803, 0.709, 0.60, 864, 142, 46068, "L40S datasheet; matmul ceiling assumed as H100's"},
};

}  // namespace

Result<GpuCompute> gpu_compute(const std::string& gpu_model, const Job& job) {
  const ComputeOverrides& o = job.compute;
  GpuCompute g;
  g.model = gpu_model;
  g.arch = gpu_arch_from_compute_capability(gpu_compute_capability(gpu_model));
  const GpuEntry* entry = nullptr;
  for (const GpuEntry& e : kGpus)
    if (gpu_model.starts_with(e.prefix)) {
      entry = &e;
      break;
    }
  const Dtype dtype = job.training.dtype;
  if (entry) {
    if (dtype == Dtype::fp8 && entry->fp8_tflops == 0 && !o.peak_tflops)
      return Error{"training.dtype: " + gpu_model + " has no fp8 tensor cores"};
    const bool fp8 = dtype == Dtype::fp8;
    // fp32 training runs its matrix products as TF32, half the bf16 rate.
    g.peak_tflops = fp8 ? entry->fp8_tflops : dtype == Dtype::fp32 ? entry->bf16_tflops / 2 : entry->bf16_tflops;
    g.matmul_tflops = g.peak_tflops * (fp8 ? entry->fp8_matmul : entry->bf16_matmul);
    g.attention_tflops = entry->bf16_tflops * entry->attention;
    g.hbm_GBps = entry->hbm_GBps;
    g.sms = entry->sms;
    g.memory_bytes = entry->memory_MiB * 1024 * 1024;
    g.source = entry->source;
  } else if (!o.peak_tflops || !o.matmul_tflops || !o.attention_tflops || !o.hbm_GBps || !o.sms || !o.memory_bytes) {
    return Error{"compute: no compute figures for GPU model '" + gpu_model +
                 "'; give compute.peak_tflops, matmul_tflops, attention_tflops, hbm_GBps, sms and memory in the job "
                 "file"};
  }
  const bool overridden =
      o.peak_tflops || o.matmul_tflops || o.attention_tflops || o.hbm_GBps || o.sms || o.memory_bytes;
  // A new peak keeps the table's matmul ceiling as the same fraction of it.
  if (o.peak_tflops && entry && g.peak_tflops > 0) g.matmul_tflops *= *o.peak_tflops / g.peak_tflops;
  if (o.peak_tflops) g.peak_tflops = *o.peak_tflops;
  if (o.matmul_tflops) g.matmul_tflops = *o.matmul_tflops;
  if (o.attention_tflops) g.attention_tflops = *o.attention_tflops;
  if (o.hbm_GBps) g.hbm_GBps = *o.hbm_GBps;
  if (o.sms) g.sms = *o.sms;
  if (o.memory_bytes) g.memory_bytes = *o.memory_bytes;
  if (g.matmul_tflops <= 0)
    return Error{"compute.matmul_tflops: " + gpu_model + " has no table figure at " +
                 std::string(to_string(dtype)) + "; give it in the job file"};
  if (g.matmul_tflops > g.peak_tflops)
    return Error{"compute.matmul_tflops: " + format_number(g.matmul_tflops) + " is above the peak of " +
                 format_number(g.peak_tflops) + " TFLOPS"};
  if (overridden) g.source = entry ? g.source + ", overridden by the job file" : "job file";
  return g;
}

}  // namespace topoplan

// What the hardware delivers to NCCL, as opposed to what its links are rated at: the numbers the
// cost model calibrates, in one overlay (`--calibration FILE`; `topoplan calibrate` will write it).
// NCCL's own constants (latencies, protocol factors) stay in the NCCL tuning table.
#pragma once

#include <array>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "base/error.h"
#include "cost/nccl_tuning.h"
#include "topology/cluster.h"
#include "topology/kinds.h"

namespace topoplan {

// Where NVLS multimem traffic runs, as its efficiency differs: the GPU generation, and whether the
// NVLink domain is one host's baseboard or spans hosts over NVLink cables (NCCL's MNNVL, an NVL72
// rack).
enum class NvlsDomain : uint8_t { hopper, blackwell, hopper_mnnvl, blackwell_mnnvl };
inline constexpr size_t kNvlsDomains = 4;
std::string_view to_string(NvlsDomain d);  // "hopper", "blackwell", "hopper_mnnvl", "blackwell_mnnvl"
// The domain of a link between a GPU and its NVSwitch, either way (the switch's GPUs on other hosts
// make it MNNVL).
NvlsDomain nvls_domain_of(const Cluster& cluster, EdgeId gpu_nvswitch);

struct Calibration {
  std::string source;  // where the numbers were fitted
  // Fraction of a link's line rate that NCCL's copy-based transfers (rings, trees, send/recv)
  // sustain, per LinkKind: protocol headers, flow control and DMA engines take the rest.
  std::array<double, kLinkKinds> efficiency{};
  // Copies over a GPU's own NVLink, per GPU generation (GpuArch): what NCCL's kernels get of the
  // link differs by generation. efficiency[NVL] is then for NVLink between switches.
  std::array<double, kGpuArchs> nvl_efficiency{};
  // NVLS multimem reduce / broadcast through the NVSwitch, relative to copies on the same NVLink,
  // per NvlsDomain.
  std::array<double, kNvlsDomains> nvls_efficiency{};
  // Fixed cost per collective call seen by nccl-tests: launch, argument setup, stream sync.
  double launch_us = 0;
  // Fixed cost per call beyond NCCL's latency and the launch, by the class of the group's busiest
  // link: what `topoplan calibrate` measures one class above another (0 until measured).
  std::array<double, kLinkKinds> latency_us{};
  // The share of its kernels' own rates (matmul ceiling, flash attention, HBM bandwidth) a training
  // step sustains, per GPU generation: clocks held down by the power cap, launch gaps between a
  // layer's ~100 kernels, and work no kernel class counts (planner/layer_kernels.h).
  std::array<double, kGpuArchs> compute_efficiency{};

  // What a copy gets of edge e's line rate, and NVLS multimem of a GPU-NVSwitch edge.
  double copy_efficiency(const Cluster& cluster, EdgeId e) const;
  // The figure copy_efficiency reads for an edge: nvl_efficiency of its GPU's generation on a
  // GPU's own NVLink, else efficiency of its link kind. Its overlay key ("efficiency.NET",
  // "nvl_efficiency.hopper") names it to people.
  struct Slot {
    bool nvl = false;
    size_t index = 0;
  };
  static Slot copy_slot(const Cluster& cluster, EdgeId e);
  double& at(Slot slot) { return slot.nvl ? nvl_efficiency[slot.index] : efficiency[slot.index]; }
  static std::string key(Slot slot);
  double multimem_efficiency(const Cluster& cluster, EdgeId e) const;
};

// The GPU at either end of an edge, or kNoVertex.
VertexId gpu_end(const Cluster& cluster, EdgeId e);
// NCCL's generation of a GPU, from its model.
GpuArch gpu_arch_of(const Cluster& cluster, VertexId gpu);

// The defaults, fitted to published nccl-tests results (calibration.cc says which).
const Calibration& calibration_default();

// An overlay: every key optional, the rest from `base`. `where` prefixes errors.
// {"efficiency": {"NET": 0.95}, "nvl_efficiency": {"hopper": 0.82}, "nvls_efficiency": {"blackwell": 0.74},
//  "launch_us": 30, "latency_us": {"NET": 12}, "compute_efficiency": {"hopper": 0.6}}; a number for
// nvl_efficiency, nvls_efficiency or compute_efficiency sets every generation or domain.
Result<Calibration> calibration_from_json(const nlohmann::json& doc, const std::string& where,
                                          const Calibration& base = calibration_default());
Result<Calibration> calibration_load(const std::string& path);
// What --calibration gives: the defaults when `path` is empty, else the overlay there.
Result<Calibration> calibration_load_or_default(const std::string& path);
// Every key, so the output of one run can be edited and fed back.
nlohmann::json calibration_to_json(const Calibration& c);

}  // namespace topoplan

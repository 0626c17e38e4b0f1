// What a GPU model string says about the silicon: its CUDA compute capability and NVLink generation.
// Shared by the cost model (NCCL's tuning is per architecture) and the importers (a topology file
// counts NVLinks; their rate depends on the generation).
#pragma once

#include <string>

namespace topoplan {

// SM version of a GPU model string ("H100-SXM5" -> 90); 0 when unknown.
int gpu_compute_capability(const std::string& model);

// The model string of an NVIDIA GPU's PCI device ID (0x2330 -> "H100-SXM5"), as topology files
// that carry the ID (NCCL's XML dump, hwloc) tell it; "" when not in the table.
std::string gpu_model_of_pci_device(unsigned device_id);

// One NVLink's rate in one direction, GB/s, for a GPU of compute capability `cc`.
double nvlink_lane_GBps(int cc);

// NVLinks an SXM GPU of compute capability `cc` has: V100 6, A100 12, H100 and B200 18; 0 unknown.
int nvlinks_per_gpu(int cc);

}  // namespace topoplan

#include "topology/gpu_models.h"

namespace topoplan {

int gpu_compute_capability(const std::string& model) {
  // CUDA GPUs table (developer.nvidia.com/cuda-gpus): V100 7.0, A100 8.0, L40S / L40 / L4 8.9,
  // H100 / H200 / H800 9.0, B200 / GB200 10.0.
  // Asked per link a load first meets (Calibration): the first letter rules most out.
  struct Entry {
    std::string_view prefix;
    int cc;
  };
  static constexpr Entry kTable[] = {{"V100", 70},   {"A100", 80},  {"A800", 80},  {"L40", 89},   {"L4", 89},
                                     {"H100", 90},   {"H200", 90},  {"H800", 90},  {"GH200", 90}, {"B200", 100},
                                     {"GB200", 100}, {"B300", 100}, {"GB300", 100}};
  const std::string_view m = model;
  for (const Entry& e : kTable)
    if (!m.empty() && m[0] == e.prefix[0] && m.starts_with(e.prefix)) return e.cc;
  return 0;
}

std::string gpu_model_of_pci_device(unsigned device_id) {
  // Device IDs of vendor 0x10de from the PCI ID Repository (pci-ids.ucw.cz), data-centre parts only.
  struct Entry {
    unsigned id;
    const char* model;
  };
  static constexpr Entry kTable[] = {
      {0x1db1, "V100-SXM2"}, {0x1db5, "V100-SXM2"}, {0x1db8, "V100-SXM3"}, {0x1db4, "V100-PCIe"}, {0x1db6, "V100-PCIe"},
      {0x20b0, "A100-SXM4"}, {0x20b2, "A100-SXM4"}, {0x20f1, "A100-PCIe"}, {0x20b5, "A100-PCIe"}, {0x2330, "H100-SXM5"},
      {0x2331, "H100-PCIe"}, {0x2321, "H100-NVL"},  {0x2335, "H200-SXM5"}, {0x2342, "GH200"},     {0x2901, "B200"},
      {0x26b9, "L40S"},      {0x26b5, "L40"},       {0x27b8, "L4"}};
  for (const Entry& e : kTable)
    if (e.id == device_id) return e.model;
  return "";
}

// NVLink2 to NVLink4 run 25 GB/s per link and direction, NVLink5 50 GB/s (NVIDIA NVLink product
// page: V100 6 links 300 GB/s, A100 12 links 600 GB/s, H100 18 links 900 GB/s, B200 18 links
// 1.8 TB/s, all bidirectional). NCCL counts links, then charges its own per-link figure.
double nvlink_lane_GBps(int cc) { return cc >= 100 ? 50.0 : 25.0; }

// The same product page: V100 6 links, A100 12, H100 18, B200 18 (L40S and other PCIe cards: none).
int nvlinks_per_gpu(int cc) {
  if (cc == 70) return 6;
  if (cc == 80) return 12;
  if (cc == 90 || cc >= 100) return 18;
  return 0;
}

}  // namespace topoplan

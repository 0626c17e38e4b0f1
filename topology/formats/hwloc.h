// hwloc: this machine as the hwloc library sees it, or an XML file that `lstopo --of xml` wrote:
// NUMA nodes and cores, the PCIe tree, NVIDIA GPUs (PCI class 0x03, vendor 0x10de; CUDA or NVML
// OS devices give their order), RDMA NICs (PCI class 0x02 with an OpenFabrics device: mlx5_0), and
// NVLink bandwidth where NVML was there to report it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "topology/formats/node_facts.h"

namespace topoplan {

struct HwlocHost {
  NodeFacts facts;
  int numa_nodes = 0;
  std::vector<std::string> other_nics;  // network devices without RDMA, which NCCL's IB transport does not use
  std::string cpu_model;                // hwloc's CPUModel of the first package, "" when not given
};

// The machine this runs on.
Result<HwlocHost> hwloc_local();
// An XML export's text; errors name `where`.
Result<HwlocHost> hwloc_xml(const std::string& text, const std::string& where);
// The facts alone, as the other node formats give them.
Result<NodeFacts> hwloc_xml_facts(const std::string& text, const std::string& where);

// Whether the file is XML whose root is hwloc's <topology> (import_format.h).
bool hwloc_xml_sniff(std::string_view line, std::string_view text);

}  // namespace topoplan

// What one server's topology file says (nvidia-smi topo -m, NCCL's topology XML), before it becomes
// a node type: which GPUs and NICs share a PCIe switch, which NUMA node each hangs off, how many
// NVLinks each GPU has. node_type_infer turns the facts into a NodeType, taking what the file does
// not say (the GPU model, often the NIC rate) from the hints, and refuses what a node type cannot
// express (uneven PCIe switches, GPUs with different NVLink counts) with the reason.
#pragma once

#include <string>
#include <vector>

#include "topology/node_types.h"

namespace topoplan {

struct NodeFacts {
  std::string format;  // "nvidia-smi topo -m", "NCCL topology XML": for messages
  struct Gpu {
    std::string name;          // as the file calls it: "GPU3", "0000:a4:00.0"
    std::string busid;         // PCI bus ID, "" when the file does not give it
    int numa = -1;             // NUMA node as the file numbers it; -1 unknown
    int pcie_switch = -1;      // GPUs and NICs with the same number share a PCIe switch; -1 none
    int nvswitch_links = 0;    // NVLinks into NVSwitches (NCCL XML)
    int sm = 0;                // compute capability when the file gives it (NCCL XML)
    unsigned pci_device = 0;   // NVIDIA PCI device ID when the file gives it (NCCL's dump, hwloc); 0 unknown
    double pcie_GBps = 0;      // the GPU's own PCIe link, 0 unknown
    double nvswitch_GBps = 0;  // NVLink bandwidth into NVSwitches where the file gives a rate (hwloc)
  };
  struct Nic {
    std::string name;  // as the file shows it: "NIC0", "mlx5_0", a bus ID
    std::string busid;
    std::string rdma;  // the RDMA device's name ("mlx5_0"), "" when the file does not give it
    int numa = -1;
    int pcie_switch = -1;
    double gbit_s = 0;  // line rate, Gbit/s; 0 unknown
  };
  std::vector<Gpu> gpus;  // in CUDA order
  std::vector<Nic> nics;
  // NVLinks between GPU pairs (nvidia-smi's NV#, NCCL's nvlink to a GPU); empty when none.
  std::vector<std::vector<int>> peer_nvlinks;
  // False where the file leaves NVLinks out for NCCL to detect (NCCL_TOPO_FILE's bare PCI entries).
  bool nvlinks_listed = true;
  std::string cpu_vendor;  // "Intel", "AMD", "" when not given
  int cores = 0;           // physical cores in the host, 0 when not given (hwloc counts them)
};

// What the file cannot say; zero or empty = not given. `base` fills anything still missing.
struct NodeHints {
  std::string name, gpu_model, cpu_model;
  double nic_gbit_s = 0, pcie_GBps = 0, cpu_link_GBps = 0, nvlink_lane_GBps = 0;
  int nvlinks = -1;  // per GPU, for files that do not list them; -1 not given
  const NodeType* base = nullptr;
};

// Where each value of the inferred type came from ("file", "--base dgx-h100", "--nic-rate"), for
// the import summary; one line per field that was not plain counting.
struct NodeTypeInference {
  NodeType type;
  std::vector<std::pair<std::string, std::string>> sources;  // field, where from
};

// CUDA order: the permutation that sorts GPUs by the index the file gives each (NCCL's dev,
// hwloc's CUDA or NVML device) where every GPU has one, else by PCI bus ID, as CUDA_DEVICE_ORDER=
// PCI_BUS_ID numbers them.
std::vector<size_t> cuda_order(const std::vector<int>& index, const std::vector<std::string>& busids);

Result<NodeTypeInference> node_type_infer(const NodeFacts& facts, const NodeHints& hints);

}  // namespace topoplan

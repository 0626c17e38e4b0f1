// Node presets: one server (or one NVL72 rack) as devices and links, numbers cited in node_types.cc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topology/cluster.h"

namespace topoplan {

// Bounds on one host, far above any server built, so a typo cannot build millions of devices.
inline constexpr int kMaxGpusPerHost = 1024;
inline constexpr int kMaxCpusPerHost = 64;
inline constexpr int kMaxNvlinksPerGpu = 18;  // NVLink 4 and 5 (H100, B200)

struct NodeType {
  std::string name;         // "dgx-h100"
  std::string gpu_model;    // "H100-SXM"
  int gpus = 8;             // per host
  int nics = 8;             // per host, NIC i serves GPU i (rail i) where nics == gpus
  double nic_gbit_s = 400;  // line rate per NIC, Gbit/s (input edge: converted to GB/s once)
  double nvlink_GBps = 0;   // per GPU per direction, all its NVLinks; 0 = no NVLink
  double pcie_GBps = 0;     // per x16 link per direction
  int gpus_per_pcie_switch = 1;
  int cpus = 2;
  double cpu_link_GBps = 0;  // socket-to-socket (UPI / xGMI) per direction; 0 = NCCL's figure for cpu_model
  double c2c_GBps = 0;       // Grace-Blackwell NVLink-C2C per GPU per direction; 0 = none
  int hosts_per_domain = 1;  // hosts sharing one NVLink domain (18 trays in an NVL72 rack)
  // "EPYC-7742", "Xeon-8480C", "Grace": one of topology/cpu_models.h, "" = not given. NCCL sets the
  // socket link by it and tunes by its vendor.
  std::string cpu_model;
  // Physical cores per cpu vertex (one socket = one NUMA node in every preset); 0 = unknown. The
  // Open MPI rankfile splits them between the GPUs that hang off that socket.
  int cores_per_cpu = 0;
  // The PCIe switch (by index, gpus_per_pcie_switch GPUs each) NIC i hangs off; empty = spread
  // evenly, NIC i under switch i * switches / nics. Imported topologies set it where that differs.
  std::vector<int> nic_switch;
  // What an imported server called its devices: PCI bus IDs of GPU i and NIC i, NIC i's RDMA
  // name ("mlx5_0"); empty when not known. An NCCL topology file for the server needs the bus IDs.
  std::vector<std::string> gpu_busids, nic_busids, nic_names;
  // NVLinks bonded between GPU pairs where GPUs link point to point, without NVSwitches (DGX-1's
  // hybrid cube mesh, HGX A100 4-GPU boards): gpus x gpus, symmetric, each bond running at
  // nvlink_GBps / the GPU's links. Empty: the GPUs' NVLinks go to one NVSwitch domain.
  std::vector<std::vector<int>> nvlink_bonds;
};

// The checks every node type passes before anything is built: counts in range, GPUs in whole
// switches, rates positive where the part exists. The error names the field.
Result<void> node_type_check(const NodeType& type);

// The bandwidth of the bond between GPUs a and b of a mesh type, per direction; 0 when none.
double nvlink_bond_GBps(const NodeType& type, int a, int b);

// Every preset, in a stable order.
const std::vector<NodeType>& node_types();
Result<NodeType> node_type_named(const std::string& name);

// Adds one host of this type to the cluster: GPUs, NVSwitch, PCIe switches, CPUs and NICs.
// `domain` is the scale-up domain the host's GPUs join (shared by hosts of one NVL72 rack).
// Returns the first NIC's vertex; NIC i is that + i (kNoVertex when the type has none).
VertexId node_type_build(const NodeType& type, Cluster& cluster, int host, int domain, VertexId domain_nvswitch);

// What node_type_build adds for one host, so a cluster can be counted before it is built. A
// rack-scale type's shared NVSwitch (one per rack) is not included.
struct HostCounts {
  int64_t devices = 0, links = 0;
};
HostCounts node_type_counts(const NodeType& type);

// The link between two of a host's NUMA nodes, per direction: cpu_link_GBps where given, else
// NCCL's figure for cpu_model (topology/cpu_models.h), else 0: no link (neither was given).
double node_type_socket_GBps(const NodeType& type);

// Latencies per hop class, in one place so calibration has one thing to overlay.
struct HopLatency {
  static constexpr double nvlink_us = 0.5;  // NVSwitch traversal
  static constexpr double pcie_us = 0.3;
  static constexpr double cpu_us = 0.4;
  static constexpr double net_us = 0.6;       // NIC/switch port to port incl. a few metres of cable
  static constexpr double dci_base_us = 2.0;  // router traversal at each end, before propagation
};

}  // namespace topoplan

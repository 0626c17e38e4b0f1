#include "topology/node_types.h"

#include <numeric>
#include <tuple>

#include "base/limits.h"
#include "base/name_table.h"
#include "base/suggest.h"
#include "base/units.h"
#include "topology/cpu_models.h"

namespace topoplan {
namespace {

// PCIe x16 per direction after 128b/130b encoding: Gen4 16 GT/s -> 31.5 GB/s, Gen5 32 GT/s -> 63 GB/s.
constexpr double kPcieGen4x16_GBps = 31.5;
constexpr double kPcieGen5x16_GBps = 63.0;
// Physical cores per socket, from the system datasheets: AMD EPYC 7742 64 (DGX A100: dual AMD Rome
// 7742, 128 cores total); Xeon Platinum 8480C 56 (DGX H100 and H200: dual 8480C, 112 cores total);
// Xeon Platinum 8570 56 (DGX B200: two 8570, 112 cores total); NVIDIA Grace 72 Arm Neoverse V2 cores
// (Grace CPU datasheet); Xeon Gold 6448Y 32 (Intel ARK).
constexpr int kEpyc7742Cores = 64;
constexpr int kXeon8480cCores = 56;
constexpr int kXeon8570Cores = 56;
constexpr int kGraceCores = 72;
constexpr int kXeon6448yCores = 32;

// Socket links (cpu_link_GBps 0) come from the CPU model, as NCCL sets them (cpu_models.cc).
std::vector<NodeType> make_presets() {
  return {
      // DGX A100 user guide: 8x A100 SXM4, NVLink3 12 links x 25 GB/s = 300 GB/s per direction
      // through 6 NVSwitches; 8x ConnectX-6 HDR 200 Gb/s; 4 PCIe Gen4 switches, each with 2 GPUs
      // and 2 NICs; 2x AMD EPYC 7742.
      {.name = "dgx-a100",
       .gpu_model = "A100-SXM4",
       .gpus = 8,
       .nics = 8,
       .nic_gbit_s = 200,
       .nvlink_GBps = 300,
       .pcie_GBps = kPcieGen4x16_GBps,
       .gpus_per_pcie_switch = 2,
       .cpus = 2,
       .cpu_model = "EPYC-7742",
       .cores_per_cpu = kEpyc7742Cores},
      // DGX H100 user guide: 8x H100 SXM5, NVLink4 18 links x 25 GB/s = 450 GB/s per direction
      // through 4 NVSwitches; 8x ConnectX-7 400 Gb/s, each paired 1:1 with a GPU on a PCIe Gen5
      // switch (nvidia-smi topo -m shows one PIX NIC per GPU); 2x Xeon 8480C.
      {.name = "dgx-h100",
       .gpu_model = "H100-SXM5",
       .gpus = 8,
       .nics = 8,
       .nic_gbit_s = 400,
       .nvlink_GBps = 450,
       .pcie_GBps = kPcieGen5x16_GBps,
       .gpus_per_pcie_switch = 1,
       .cpus = 2,
       .cpu_model = "Xeon-8480C",
       .cores_per_cpu = kXeon8480cCores,
       // The compute ports' default RDMA names, GPU 0 to 7 (DGX H100 User Guide, section 1.2.3
       // "Network Modules", table 6: OSFP4P2 mlx5_0 for GPU 0 ... OSFP1P1 mlx5_11 for GPU 7). NIC i
       // serves GPU i, so ranks.env can pin each rank to its GPU's own port by name.
       .nic_names = {"mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"}},
      // HGX H200: same baseboard and NVLink4 as H100 (H200 datasheet: 900 GB/s bidirectional NVLink).
      {.name = "hgx-h200",
       .gpu_model = "H200-SXM5",
       .gpus = 8,
       .nics = 8,
       .nic_gbit_s = 400,
       .nvlink_GBps = 450,
       .pcie_GBps = kPcieGen5x16_GBps,
       .gpus_per_pcie_switch = 1,
       .cpus = 2,
       .cpu_model = "Xeon-8480C",
       .cores_per_cpu = kXeon8480cCores},
      // HGX B200 datasheet: NVLink5 1.8 TB/s bidirectional per GPU = 900 GB/s per direction; 8x 400 Gb/s.
      {.name = "hgx-b200",
       .gpu_model = "B200",
       .gpus = 8,
       .nics = 8,
       .nic_gbit_s = 400,
       .nvlink_GBps = 900,
       .pcie_GBps = kPcieGen5x16_GBps,
       .gpus_per_pcie_switch = 1,
       .cpus = 2,
       .cpu_model = "Xeon-8570",
       .cores_per_cpu = kXeon8570Cores},
      // GB200 NVL72: a host is one compute tray (2 Grace + 4 Blackwell); 18 trays share one NVLink5
      // domain (900 GB/s per GPU per direction); NVLink-C2C 900 GB/s bidirectional between Grace and
      // Blackwell; one 400 Gb/s ConnectX-7 per GPU on the Grace PCIe Gen5 root.
      {.name = "gb200-nvl72",
       .gpu_model = "B200-GB200",
       .gpus = 4,
       .nics = 4,
       .nic_gbit_s = 400,
       .nvlink_GBps = 900,
       .pcie_GBps = kPcieGen5x16_GBps,
       .gpus_per_pcie_switch = 1,
       .cpus = 2,
       .c2c_GBps = 450,
       .hosts_per_domain = 18,
       .cpu_model = "Grace",
       .cores_per_cpu = kGraceCores},
      // A PCIe-only 8x L40S server (e.g. Supermicro SYS-521GE-TNRT): 4 PCIe Gen4 switches with 2 GPUs
      // and one 200 Gb/s NIC each, no NVLink.
      {.name = "pcie-l40s",
       .gpu_model = "L40S",
       .gpus = 8,
       .nics = 4,
       .nic_gbit_s = 200,
       .nvlink_GBps = 0,
       .pcie_GBps = kPcieGen4x16_GBps,
       .gpus_per_pcie_switch = 2,
       .cpus = 2,
       .cpu_model = "Xeon-6448Y",
       .cores_per_cpu = kXeon6448yCores},
  };
}

}  // namespace

const std::vector<NodeType>& node_types() {
  static const std::vector<NodeType> presets = make_presets();
  return presets;
}

Result<NodeType> node_type_named(const std::string& name) {
  if (const NodeType* t = table_find(node_types(), name)) return *t;
  return Error{unknown_name("preset", name, table_names(node_types()), "presets")};
}

namespace {

// NVLinks a GPU of a mesh type bonds to its peers.
int bonds_of(const NodeType& t, int gpu) {
  const std::vector<int>& row = t.nvlink_bonds[static_cast<size_t>(gpu)];
  return std::accumulate(row.begin(), row.end(), 0);
}

// What is wrong with a point-to-point NVLink mesh, "" when nothing.
std::string bonds_problem(const NodeType& t) {
  const auto n = static_cast<size_t>(t.gpus);
  if (t.hosts_per_domain > 1)
    return "nvlink_bonds: GPUs linked point to point stay in their host; hosts_per_domain must be 1";
  if (t.nvlink_GBps <= 0) return "nvlink_bonds: give nvlink_rate, the NVLink bandwidth per GPU that its bonds share";
  if (t.nvlink_bonds.size() != n)
    return "nvlink_bonds: expected " + std::to_string(n) + " rows, one per GPU, got " +
           std::to_string(t.nvlink_bonds.size());
  for (size_t a = 0; a < n; ++a) {
    const std::string row = "nvlink_bonds[" + std::to_string(a) + "]";
    if (t.nvlink_bonds[a].size() != n)
      return row + ": expected " + std::to_string(n) + " entries, one per GPU, got " +
             std::to_string(t.nvlink_bonds[a].size());
    for (size_t b = 0; b < n; ++b) {
      const int k = t.nvlink_bonds[a][b];
      const std::string cell = row + "[" + std::to_string(b) + "]";
      if (a == b && k != 0) return cell + ": a GPU has no NVLink to itself, got " + std::to_string(k);
      if (k < 0 || k > kMaxNvlinksPerGpu)
        return cell + ": expected 0 to " + std::to_string(kMaxNvlinksPerGpu) + " NVLinks, got " + std::to_string(k);
    }
  }
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < a; ++b)
      if (t.nvlink_bonds[a][b] != t.nvlink_bonds[b][a])
        return "nvlink_bonds[" + std::to_string(a) + "][" + std::to_string(b) +
               "]: " + std::to_string(t.nvlink_bonds[a][b]) + " NVLinks, but [" + std::to_string(b) + "][" +
               std::to_string(a) + "] says " + std::to_string(t.nvlink_bonds[b][a]) + ": a bond joins both GPUs";
  const int links = bonds_of(t, 0);
  for (int g = 0; g < t.gpus; ++g)
    if (bonds_of(t, g) != links || links == 0)
      return "nvlink_bonds[" + std::to_string(g) + "]: GPU " + std::to_string(g) + " has " +
             std::to_string(bonds_of(t, g)) + " NVLinks, GPU 0 " + std::to_string(links) +
             ": every GPU shares nvlink_rate between the same number of links (above 0)";
  return "";
}

}  // namespace

double nvlink_bond_GBps(const NodeType& t, int a, int b) {
  const int bonds = t.nvlink_bonds[static_cast<size_t>(a)][static_cast<size_t>(b)];
  return bonds == 0 ? 0 : t.nvlink_GBps * bonds / bonds_of(t, a);
}

Result<void> node_type_check(const NodeType& t) {
  auto rate = [](const char* field, double GBps, bool needed) -> std::string {
    if (!(GBps >= 0) || GBps > limits::kMaxLinkGBps)
      return std::string(field) + ": expected a rate from 0 to " + format_rate_gbit(limits::kMaxLinkGBps) + ", got " +
             format_exact(GBps) + " GB/s";
    if (needed && GBps == 0) return std::string(field) + ": must be above 0";
    return "";
  };
  const bool grace = t.c2c_GBps > 0;
  std::string e;
  if (t.gpu_model.empty())
    e = "gpu_model: give the GPU model, e.g. \"H100-SXM5\"";
  else if (t.gpus < 1 || t.gpus > kMaxGpusPerHost)
    e = "gpus: expected 1 to " + std::to_string(kMaxGpusPerHost) + " per host, got " + std::to_string(t.gpus);
  else if (t.nics < 0 || t.nics > kMaxGpusPerHost)
    e = "nics: expected 0 to " + std::to_string(kMaxGpusPerHost) + " per host, got " + std::to_string(t.nics);
  else if (t.cpus < 1 || t.cpus > kMaxCpusPerHost)
    e = "cpus: expected 1 to " + std::to_string(kMaxCpusPerHost) + " per host, got " + std::to_string(t.cpus);
  else if (t.hosts_per_domain < 1)
    e = "hosts_per_domain: must be at least 1";
  else if (!grace && (t.gpus_per_pcie_switch < 1 || t.gpus % t.gpus_per_pcie_switch != 0))
    e = "gpus_per_pcie_switch: " + std::to_string(t.gpus) + " GPUs do not fill switches of " +
        std::to_string(t.gpus_per_pcie_switch);
  if (e.empty()) e = rate("nic_rate", t.nic_gbit_s / 8, t.nics > 0);
  if (e.empty()) e = rate("pcie_rate", t.pcie_GBps, !grace || t.nics > 0);
  if (e.empty()) e = rate("nvlink_rate", t.nvlink_GBps, t.hosts_per_domain > 1);
  if (e.empty()) e = rate("cpu_link_rate", t.cpu_link_GBps, false);
  if (e.empty()) e = rate("c2c_rate", t.c2c_GBps, false);
  if (e.empty() && !t.cpu_model.empty())
    if (Result<const CpuModel*> m = cpu_model_named(t.cpu_model); !m) e = "cpu_model: " + m.error();
  if (e.empty() && !t.nic_switch.empty()) {
    const int switches = t.gpus / t.gpus_per_pcie_switch;
    if (grace)
      e = "nic_switch: Grace trays hang NICs off the CPU; there are no PCIe switches to name";
    else if (static_cast<int>(t.nic_switch.size()) != t.nics)
      e = "nic_switch: expected one switch per NIC (" + std::to_string(t.nics) + "), got " +
          std::to_string(t.nic_switch.size());
    for (size_t i = 0; e.empty() && i < t.nic_switch.size(); ++i)
      if (t.nic_switch[i] < 0 || t.nic_switch[i] >= switches)
        e = "nic_switch[" + std::to_string(i) + "]: expected a switch from 0 to " + std::to_string(switches - 1) +
            ", got " + std::to_string(t.nic_switch[i]);
  }
  if (e.empty() && !t.nvlink_bonds.empty()) e = bonds_problem(t);
  for (const auto& [field, list, count, per] :
       {std::tuple{"gpu_busids", &t.gpu_busids, t.gpus, "GPU"}, std::tuple{"nic_busids", &t.nic_busids, t.nics, "NIC"},
        std::tuple{"nic_names", &t.nic_names, t.nics, "NIC"}})
    if (e.empty() && !list->empty() && static_cast<int>(list->size()) != count)
      e = std::string(field) + ": expected " + std::to_string(count) + " entries, one per " + per + ", got " +
          std::to_string(list->size());
  if (!e.empty()) return Error{e};
  return {};
}

double node_type_socket_GBps(const NodeType& type) {
  if (type.cpu_link_GBps > 0) return type.cpu_link_GBps;
  if (type.cpu_model.empty()) return 0;
  Result<const CpuModel*> m = cpu_model_named(type.cpu_model);
  return m ? (*m)->socket_GBps : 0;
}

HostCounts node_type_counts(const NodeType& type) {
  const bool grace = type.c2c_GBps > 0;
  const int64_t switches = grace ? 0 : type.gpus / type.gpus_per_pcie_switch;
  const bool mesh = !type.nvlink_bonds.empty();
  const bool own_nvswitch = type.nvlink_GBps > 0 && type.hosts_per_domain == 1 && !mesh;
  int64_t mesh_links = 0;
  for (int a = 0; mesh && a < type.gpus; ++a)
    for (int b = a + 1; b < type.gpus; ++b)
      mesh_links += type.nvlink_bonds[static_cast<size_t>(a)][static_cast<size_t>(b)] > 0;
  HostCounts n;
  n.devices = type.cpus + switches + (own_nvswitch ? 1 : 0) + type.gpus + type.nics;
  n.links = (node_type_socket_GBps(type) > 0 ? type.cpus * (type.cpus - 1) / 2 : 0) + switches +
            int64_t{type.gpus} * (type.nvlink_GBps > 0 && !mesh ? 2 : 1) + mesh_links + type.nics;
  return n;
}

VertexId node_type_build(const NodeType& type, Cluster& cluster, int host, int domain, VertexId domain_nvswitch) {
  const Host& h = cluster.hosts()[host];
  auto add = [&](const std::string& suffix, DeviceKind kind, int local) {
    Device d;
    d.name = h.name + "/" + suffix;
    d.kind = kind;
    d.host = host;
    d.site = h.site;
    d.local_index = static_cast<int16_t>(local);
    if (kind == DeviceKind::nic) d.rail = static_cast<int16_t>(local);  // NIC i is on rail i
    if (kind == DeviceKind::gpu) {
      d.scaleup_domain = domain;
      d.model = type.gpu_model;
    }
    if (kind == DeviceKind::cpu) d.model = type.cpu_model;
    return cluster.add_device(std::move(d)).value();
  };
  auto link = [&](VertexId a, VertexId b, LinkKind k, double bw, double lat) {
    cluster.add_link(a, b, k, bw, lat).value();
  };

  std::vector<VertexId> cpus;
  for (int c = 0; c < type.cpus; ++c) cpus.push_back(add("cpu" + std::to_string(c), DeviceKind::cpu, c));
  // Sockets (or NUMA nodes) meet each other directly: UPI, xGMI, the on-die fabric.
  if (const double socket = node_type_socket_GBps(type); socket > 0)
    for (int a = 0; a < type.cpus; ++a)
      for (int b = a + 1; b < type.cpus; ++b) link(cpus[a], cpus[b], LinkKind::SYS, socket, HopLatency::cpu_us);

  // Grace-based trays hang GPUs off the CPU by C2C and NICs off its PCIe root; others use switches.
  const bool grace = type.c2c_GBps > 0;
  std::vector<VertexId> switches;
  if (!grace) {
    int n = type.gpus / type.gpus_per_pcie_switch;
    for (int s = 0; s < n; ++s) {
      VertexId sw = add("pcie" + std::to_string(s), DeviceKind::pcie_switch, s);
      link(sw, cpus[s * type.cpus / n], LinkKind::PCI, type.pcie_GBps, HopLatency::pcie_us);
      switches.push_back(sw);
    }
  }
  const bool mesh = !type.nvlink_bonds.empty();
  if (type.nvlink_GBps > 0 && !mesh && domain_nvswitch == kNoVertex) {
    // One vertex stands for all NVSwitch chips of the domain: they act as one full crossbar.
    Device nvs;
    nvs.name = h.name + "/nvswitch";
    nvs.kind = DeviceKind::nvswitch;
    nvs.host = host;
    nvs.site = h.site;
    nvs.scaleup_domain = domain;
    domain_nvswitch = cluster.add_device(std::move(nvs)).value();
  }
  std::vector<VertexId> gpus;
  for (int g = 0; g < type.gpus; ++g) {
    VertexId gpu = add("gpu" + std::to_string(g), DeviceKind::gpu, g);
    gpus.push_back(gpu);
    if (grace)
      link(gpu, cpus[g * type.cpus / type.gpus], LinkKind::C2C, type.c2c_GBps, HopLatency::pcie_us);
    else
      link(gpu, switches[g / type.gpus_per_pcie_switch], LinkKind::PCI, type.pcie_GBps, HopLatency::pcie_us);
    if (type.nvlink_GBps > 0 && !mesh)
      link(gpu, domain_nvswitch, LinkKind::NVL, type.nvlink_GBps, HopLatency::nvlink_us);
  }
  // A mesh bonds GPU pairs directly: one link per pair, its bonds' bandwidth, no switch to cross.
  for (int a = 0; mesh && a < type.gpus; ++a)
    for (int b = a + 1; b < type.gpus; ++b)
      if (double bw = nvlink_bond_GBps(type, a, b); bw > 0)
        link(gpus[a], gpus[b], LinkKind::NVL, bw, HopLatency::nvlink_us);
  VertexId first_nic = kNoVertex;
  for (int n = 0; n < type.nics; ++n) {
    VertexId nic = add("nic" + std::to_string(n), DeviceKind::nic, n);
    if (n == 0) first_nic = nic;
    VertexId parent = grace                     ? cpus[n * type.cpus / type.nics]
                      : type.nic_switch.empty() ? switches[n * switches.size() / type.nics]
                                                : switches[type.nic_switch[n]];
    link(nic, parent, LinkKind::PCI, type.pcie_GBps, HopLatency::pcie_us);
  }
  return first_nic;
}

}  // namespace topoplan

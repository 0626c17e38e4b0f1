#include "topology/formats/node_facts.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>

#include "base/units.h"
#include "topology/cpu_models.h"
#include "topology/gpu_models.h"

namespace topoplan {
namespace {

std::string rate_text(double GBps) { return format_number(GBps) + " GB/s"; }

// Renumbers ids by first appearance; -1 stays -1.
struct Renumber {
  std::map<int, int> ids;
  int operator()(int id) {
    if (id < 0) return -1;
    return ids.emplace(id, static_cast<int>(ids.size())).first->second;
  }
};

// NVLinks per GPU, from whichever the file gives, and where GPUs bond point to point, the bonds.
struct Nvlinks {
  int per_gpu = 0;
  std::vector<std::vector<int>> bonds;  // a mesh's, else empty
};

// `cc` tells a mesh of direct bonds from the NVSwitch case, where nvidia-smi shows every pair as
// the GPU's whole bond (NV18 on H100). Without a GPU model (`model_given` false) an even matrix is
// taken as a switch: the model, asked for with the rest, settles it on the next run.
Result<Nvlinks> nvlinks_of(const NodeFacts& f, int cc, bool model_given) {
  const size_t n = f.gpus.size();
  bool any_peer = false;
  for (const auto& row : f.peer_nvlinks)
    for (int k : row) any_peer |= k > 0;
  if (any_peer) {
    const int k = f.peer_nvlinks[0][1 % n];
    bool even = true;
    for (size_t a = 0; a < n; ++a)
      for (size_t b = 0; b < n; ++b) even &= a == b || f.peer_nvlinks[a][b] == k;
    const int most = nvlinks_per_gpu(cc);
    if (even && (n <= 2 || k * static_cast<int>(n - 1) > most)) {
      if (n > 2 && most == 0 && model_given)
        return Error{"every GPU pair has " + std::to_string(k) +
                     " NVLinks, and the NVLink count of this GPU model is unknown: "
                     "that may be an NVSwitch or a mesh of direct bonds; give --gpu-model"};
      return Nvlinks{k, {}};
    }
    // A mesh: which pair talks decides the bandwidth. Every GPU must have the same links in all.
    Nvlinks mesh{0, f.peer_nvlinks};
    for (size_t a = 0; a < n; ++a) mesh.bonds[a][a] = 0;
    auto links = [&](size_t a) { return std::accumulate(mesh.bonds[a].begin(), mesh.bonds[a].end(), 0); };
    mesh.per_gpu = links(0);
    for (size_t a = 1; a < n; ++a)
      if (links(a) != mesh.per_gpu)
        return Error{f.gpus[a].name + " has " + std::to_string(links(a)) + " NVLinks to other GPUs, " + f.gpus[0].name +
                     " " + std::to_string(mesh.per_gpu) + ": a node type gives every GPU the same NVLink bandwidth"};
    return mesh;
  }
  const int k = f.gpus[0].nvswitch_links;
  for (const NodeFacts::Gpu& g : f.gpus)
    if (g.nvswitch_links != k)
      return Error{g.name + " has " + std::to_string(g.nvswitch_links) + " NVLinks to NVSwitches, " + f.gpus[0].name +
                   " " + std::to_string(k) + ": a node type gives every GPU the same NVLink bandwidth"};
  return Nvlinks{k, {}};
}

struct Missing {
  std::string what, how;  // "the NIC rate", "--nic-rate R, e.g. 400Gbps"
};

std::string missing_text(const std::vector<Missing>& missing) {
  std::string presets;
  for (const NodeType& p : node_types()) presets += (presets.empty() ? "" : ", ") + p.name;
  const bool one = missing.size() == 1;
  std::string text =
      "the file leaves out " + std::string(one ? "a value" : std::to_string(missing.size()) + " values") +
      " a node type needs; give " + (one ? "it" : "each") + " with its option (or --base PRESET to take " +
      (one ? "it" : "what the options leave out") + " from one of " + presets + "):";
  for (const Missing& m : missing) text += "\n  " + m.what + ": " + m.how;
  return text;
}

}  // namespace

std::vector<size_t> cuda_order(const std::vector<int>& index, const std::vector<std::string>& busids) {
  std::vector<size_t> order(busids.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  const bool indexed =
      index.size() == busids.size() && std::none_of(index.begin(), index.end(), [](int d) { return d < 0; });
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return indexed ? index[a] < index[b] : busids[a] < busids[b]; });
  return order;
}

Result<NodeTypeInference> node_type_infer(const NodeFacts& f, const NodeHints& hints) {
  auto fail = [&](const std::string& what) { return Error{f.format + ": " + what}; };
  if (f.gpus.empty()) return fail("no GPUs in the file");
  // A PCI bus ID names one device: a repeat is a copy-paste slip, not a second GPU or NIC.
  std::map<std::string, std::string> by_busid;
  auto claim = [&](const std::string& busid, const std::string& device) {
    if (busid.empty()) return std::string();
    auto [it, fresh] = by_busid.emplace(busid, device);
    return fresh ? std::string()
                 : "PCI bus ID " + busid + " appears twice (" + it->second + ", " + device +
                       "): a bus ID names one device";
  };
  for (const NodeFacts::Gpu& g : f.gpus)
    if (std::string e = claim(g.busid, "GPU " + g.name); !e.empty()) return fail(e);
  for (const NodeFacts::Nic& n : f.nics)
    if (std::string e = claim(n.busid, "NIC " + n.name); !e.empty()) return fail(e);
  const NodeType* base = hints.base;
  const std::string base_text = base ? "--base " + base->name : "";
  NodeTypeInference out;
  NodeType& t = out.type;
  auto note = [&](const char* field, const std::string& from) { out.sources.emplace_back(field, from); };
  // Values neither the file, an option nor --base gave: all of them in one message, not one a run.
  std::vector<Missing> missing;
  auto lacks = [&](std::string what, std::string how) { missing.push_back({std::move(what), std::move(how)}); };
  t.name = hints.name.empty() ? "imported" : hints.name;
  t.gpus = static_cast<int>(f.gpus.size());
  t.hosts_per_domain = 1;
  note("hosts_per_domain", "one: the file describes one host");
  t.nic_gbit_s = 0;
  t.nvlink_GBps = 0;
  t.cpu_link_GBps = 0;
  t.c2c_GBps = 0;
  t.cores_per_cpu = 0;
  t.cpu_model.clear();

  const std::string file_model = gpu_model_of_pci_device(f.gpus[0].pci_device);
  for (const NodeFacts::Gpu& g : f.gpus)
    if (g.pci_device != f.gpus[0].pci_device)
      return fail(g.name + " is another GPU model than " + f.gpus[0].name + ": a node type has one GPU model");
  char device[16];
  std::snprintf(device, sizeof device, "0x%04x", f.gpus[0].pci_device);
  if (!hints.gpu_model.empty())
    t.gpu_model = hints.gpu_model, note("gpu_model", "--gpu-model");
  else if (!file_model.empty())
    t.gpu_model = file_model, note("gpu_model", std::string("file: PCI device ") + device);
  else if (base)
    t.gpu_model = base->gpu_model, note("gpu_model", base_text);
  else
    lacks(std::string("the GPU model") +
              (f.gpus[0].pci_device ? std::string(" (PCI device ") + device + " is not one topoplan knows)" : ""),
          "--gpu-model M, e.g. H100-SXM5, A100-SXM4, L40S");
  const bool model_given = !t.gpu_model.empty();

  const int cc = f.gpus[0].sm ? f.gpus[0].sm : gpu_compute_capability(t.gpu_model);
  Result<Nvlinks> nvlinks = nvlinks_of(f, cc, model_given);
  if (!nvlinks) return fail(nvlinks.error());
  int links = nvlinks->per_gpu;
  if (hints.nvlinks >= 0 && !nvlinks->bonds.empty()) {
    return fail("--nvlinks: the file bonds GPUs to each other point to point; each pair's links come from the file");
  } else if (hints.nvlinks >= 0) {
    links = hints.nvlinks;
  } else if (!f.nvlinks_listed && base) {
    t.nvlink_GBps = base->nvlink_GBps;
    note("nvlink_rate", base_text + " (the file leaves NVLinks for NCCL to find)");
  } else if (!f.nvlinks_listed) {
    lacks("the NVLinks per GPU (the file leaves them for NCCL to find at run time)",
          "--nvlinks N, e.g. 12 on A100, 18 on H100 and B200, 0 for none");
  }
  if (hints.nvlinks < 0 && f.gpus[0].nvswitch_GBps > 0) {
    for (const NodeFacts::Gpu& g : f.gpus)
      if (g.nvswitch_GBps != f.gpus[0].nvswitch_GBps)
        return fail(
            g.name + " has " + rate_text(g.nvswitch_GBps) + " of NVLink into NVSwitches, " + f.gpus[0].name + " " +
            rate_text(f.gpus[0].nvswitch_GBps) +
            ": a node type gives every GPU the same NVLink bandwidth (a link down? --nvlinks N sets the count)");
    t.nvlink_GBps = f.gpus[0].nvswitch_GBps;
    note("nvlink_rate", "file: NVLink bandwidth into NVSwitches");
  } else if (links > 0) {
    double lane = hints.nvlink_lane_GBps;
    std::string from = "--nvlink-rate per link";
    if (lane == 0 && cc == 0 && model_given)
      lacks("one NVLink's rate (" + std::to_string(links) + " NVLinks per GPU, and the NVLink generation of '" +
                t.gpu_model + "' is unknown)",
            "--nvlink-rate R, one link in one direction: 25GB/s for NVLink 2 to 4 (V100 to H200), 50GB/s for NVLink 5 "
            "(B200)");
    if (lane == 0) lane = nvlink_lane_GBps(cc), from = rate_text(lane) + " per link (sm " + std::to_string(cc) + ")";
    t.nvlink_GBps = links * lane;
    note("nvlink_rate",
         (hints.nvlinks >= 0 ? "--nvlinks: " : "file: ") + std::to_string(links) + " NVLinks per GPU x " + from);
    t.nvlink_bonds = nvlinks->bonds;
    if (!t.nvlink_bonds.empty()) note("nvlink_bonds", "file: GPUs bonded point to point, no NVSwitch (a mesh)");
  }

  // PCIe switches, numbered by their first GPU; a GPU without one sits alone on its root port.
  Renumber switch_of;
  std::vector<int> gpu_switch;
  int next_alone = 1 << 20;
  for (const NodeFacts::Gpu& g : f.gpus)
    gpu_switch.push_back(switch_of(g.pcie_switch >= 0 ? g.pcie_switch : next_alone++));
  const int switches = static_cast<int>(switch_of.ids.size());
  if (t.gpus % switches != 0)
    return fail(std::to_string(t.gpus) + " GPUs on " + std::to_string(switches) +
                " PCIe switches do not share them evenly: a node type puts the same number of GPUs under each");
  t.gpus_per_pcie_switch = t.gpus / switches;
  for (int g = 0; g < t.gpus; ++g)
    if (gpu_switch[g] != g / t.gpus_per_pcie_switch)
      return fail(f.gpus[g].name +
                  " shares a PCIe switch with GPUs that are not next to it in CUDA order, or the switches hold "
                  "different numbers of GPUs: a node type puts GPUs 0.." +
                  std::to_string(t.gpus_per_pcie_switch - 1) + " under switch 0, and so on");
  if (t.gpus_per_pcie_switch > 1)
    note("gpus_per_pcie_switch", "file: " + std::to_string(t.gpus_per_pcie_switch) + " GPUs share each PCIe switch");

  // NUMA nodes become the type's CPUs, numbered by their first GPU; switch s sits on CPU
  // s * cpus / switches in a built host, so the file must agree.
  Renumber cpu_of;
  std::vector<int> gpu_cpu;
  for (const NodeFacts::Gpu& g : f.gpus) gpu_cpu.push_back(cpu_of(g.numa));
  for (const NodeFacts::Nic& n : f.nics) cpu_of(n.numa);
  const bool numa_known = std::none_of(gpu_cpu.begin(), gpu_cpu.end(), [](int c) { return c < 0; });
  if (numa_known) {
    t.cpus = static_cast<int>(cpu_of.ids.size());
    for (int g = 0; g < t.gpus; ++g)
      if (gpu_cpu[g] != gpu_switch[g] * t.cpus / switches)
        return fail(
            f.gpus[g].name + " is on NUMA node " + std::to_string(f.gpus[g].numa) +
            ", out of step with the GPUs before it: a node type spreads GPUs over its CPUs in equal, ordered blocks");
    note("cpus", "file: NUMA nodes with GPUs or NICs");
  } else if (base) {
    t.cpus = base->cpus;
    note("cpus", base_text + " (the file gives no NUMA nodes)");
  } else {
    t.cpus = 1;
    note("cpus", "one: the file gives no NUMA nodes");
  }

  // NICs under the switch they share with a GPU, else under the first switch of their NUMA node.
  std::vector<std::pair<int, size_t>> nic_order;  // switch, index in the file
  for (size_t i = 0; i < f.nics.size(); ++i) {
    const NodeFacts::Nic& n = f.nics[i];
    int s = -1;
    if (n.pcie_switch >= 0 && switch_of.ids.contains(n.pcie_switch))
      s = switch_of.ids.at(n.pcie_switch);
    else if (int c = n.numa >= 0 && numa_known ? cpu_of.ids.at(n.numa) : -1; c >= 0)
      for (int sw = 0; sw < switches && s < 0; ++sw)
        if (sw * t.cpus / switches == c) s = sw;
    if (s < 0)
      return fail(
          "NIC " + n.name +
          ": the file puts it under no GPU's PCIe switch and on no NUMA node with GPUs; a node type cannot place it");
    nic_order.emplace_back(s, i);
  }
  std::stable_sort(nic_order.begin(), nic_order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  t.nics = static_cast<int>(nic_order.size());
  bool spread = true;
  for (int i = 0; i < t.nics; ++i) {
    t.nic_switch.push_back(nic_order[i].first);
    const NodeFacts::Nic& nic = f.nics[nic_order[i].second];
    t.nic_names.push_back(nic.rdma);
    t.nic_busids.push_back(nic.busid);
    spread &= nic_order[i].first == i * switches / t.nics;
  }
  if (spread) t.nic_switch.clear();
  // Names and bus IDs are kept only where the file gives every one.
  auto all_given = [](std::vector<std::string>& v) {
    if (std::any_of(v.begin(), v.end(), [](const std::string& x) { return x.empty(); })) v.clear();
  };
  for (const NodeFacts::Gpu& g : f.gpus) t.gpu_busids.push_back(g.busid);
  all_given(t.gpu_busids);
  all_given(t.nic_busids);
  all_given(t.nic_names);
  if (t.nics > 0)
    note("nics", spread ? "file: spread evenly over the PCIe switches" : "file: placed by PCIe switch (nic_switch)");

  double file_gbit_s = 0;
  for (const NodeFacts::Nic& n : f.nics) {
    if (n.gbit_s > 0 && file_gbit_s > 0 && n.gbit_s != file_gbit_s)
      return fail("NICs run at different rates (" + format_number(file_gbit_s) + " and " + format_number(n.gbit_s) +
                  " Gbit/s, " + n.name + "): a node type has one NIC rate; give --nic-rate to choose");
    if (n.gbit_s > 0) file_gbit_s = n.gbit_s;
  }
  // Each rate from the first of option, file and base that gives one.
  using Sources = std::initializer_list<std::pair<double, std::string>>;
  auto pick = [&](double* to, const char* field, Sources sources) {
    for (const auto& [value, from] : sources)
      if (value > 0) {
        *to = value;
        note(field, from);
        return true;
      }
    return false;
  };
  if (t.nics > 0 && !pick(&t.nic_gbit_s, "nic_rate",
                          {{hints.nic_gbit_s, "--nic-rate"},
                           {file_gbit_s, "file"},
                           {base ? base->nic_gbit_s : 0, base_text + " (the file gives no NIC rate)"}}))
    lacks("the NIC rate", "--nic-rate R, e.g. 100Gbps, 200Gbps (HDR), 400Gbps (NDR)");

  double file_pcie = 0;
  for (const NodeFacts::Gpu& g : f.gpus)
    if (g.pcie_GBps > 0) file_pcie = file_pcie > 0 ? std::min(file_pcie, g.pcie_GBps) : g.pcie_GBps;
  if (!pick(&t.pcie_GBps, "pcie_rate",
            {{hints.pcie_GBps, "--pcie-rate"},
             {file_pcie, "file: the GPUs' link speed and width"},
             {base ? base->pcie_GBps : 0, base_text + " (the file gives no PCIe link speed)"}}))
    lacks("the PCIe rate (the file gives no link speed)",
          "--pcie-rate R per direction, e.g. 31.5GB/s (Gen4 x16), 63GB/s (Gen5 x16)");

  const std::string vendor_model = f.cpu_vendor == "AMD" ? "EPYC" : f.cpu_vendor == "Intel" ? "Xeon" : "";
  const bool base_cpu_fits = base && (vendor_model.empty() || base->cpu_model.starts_with(vendor_model));
  if (f.cores > 0 && f.cores % t.cpus == 0)
    t.cores_per_cpu = f.cores / t.cpus,
    note("cores_per_cpu", "file: " + std::to_string(f.cores) + " cores over " + std::to_string(t.cpus) + " NUMA nodes");
  if (!hints.cpu_model.empty())
    t.cpu_model = hints.cpu_model, note("cpu_model", "--cpu-model");
  else if (base_cpu_fits) {
    t.cpu_model = base->cpu_model, note("cpu_model", base_text);
    if (t.cores_per_cpu == 0 && base->cpus == t.cpus && base->cores_per_cpu > 0)
      t.cores_per_cpu = base->cores_per_cpu, note("cores_per_cpu", base_text);
  } else if (!vendor_model.empty())
    t.cpu_model = vendor_model, note("cpu_model", "file: " + f.cpu_vendor + " CPUs");

  // The socket link: given, else NCCL's figure for the CPU model settled on above.
  if (t.cpus > 1 && !pick(&t.cpu_link_GBps, "cpu_link_rate", {{hints.cpu_link_GBps, "--cpu-link-rate"}})) {
    if (t.cpu_model.empty())
      lacks("the link between the " + std::to_string(t.cpus) + " NUMA nodes (the file names no CPU)",
            "--cpu-model M, e.g. Xeon-8480C, EPYC-9654 (NCCL's figure for it), or --cpu-link-rate R, e.g. 10GB/s");
    else if (Result<const CpuModel*> m = cpu_model_named(t.cpu_model))
      note("cpu_link_rate",
           "cpu_model " + t.cpu_model + ": " + rate_text((*m)->socket_GBps) + ", " + cpu_model_source(**m));
  }

  if (!missing.empty()) return fail(missing_text(missing));
  if (Result<void> ok = node_type_check(t); !ok) return fail(ok.error());
  return out;
}

}  // namespace topoplan

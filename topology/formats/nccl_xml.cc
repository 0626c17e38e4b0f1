#include "topology/formats/nccl_xml.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <pugixml.hpp>
#include <sstream>

#include "topology/formats/import_format.h"

namespace topoplan {
namespace {

// PCI class codes (PCI-SIG code and ID assignment): 0x03 display (0x0302 3D controller: data-centre
// GPUs), 0x02 network (0x0207 InfiniBand), 0x0604 PCI-to-PCI bridge (a switch port), 0x0680 other
// bridge (NVSwitch).
bool class_is(const char* cls, const char* prefix) { return std::strncmp(cls, prefix, std::strlen(prefix)) == 0; }

// One lane's rate at `gts` after line coding: 8b/10b to 5 GT/s, 128b/130b to 32 GT/s, and PCIe 6's
// flits carry 236 TLP bytes of 256; x16 Gen4 = 31.51 GB/s.
double lane_GBps(double gts) { return gts * (gts <= 5 ? 8.0 / 10 : gts <= 32 ? 128.0 / 130 : 236.0 / 256) / 8; }

// The line of `text` that byte `offset` is on, from 1.
int line_at(const std::string& text, ptrdiff_t offset) {
  offset = std::clamp<ptrdiff_t>(offset, 0, static_cast<ptrdiff_t>(text.size()));
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + offset, '\n'));
}

struct Reader {
  const std::string& text;
  const std::string& where;
  NodeFacts facts;
  std::string error;
  struct PeerLink {
    size_t gpu;
    std::string target;
    int count;
  };
  std::vector<PeerLink> peers;
  std::vector<int> gpu_dev;

  void fail(const pugi::xml_node& n, const std::string& what) {
    const ptrdiff_t offset = n.offset_debug();
    if (error.empty())
      error = where + ":" + std::to_string(offset < 0 ? 0 : line_at(text, offset)) + ": <" + n.name() + "> " + what;
  }
  int integer(const pugi::xml_node& n, const char* attr, int fallback) {
    const pugi::xml_attribute a = n.attribute(attr);
    if (!a) return fallback;
    const std::string v = a.value();
    int x = 0;
    const bool hex = v.starts_with("0x");
    auto [p, ec] = std::from_chars(v.data() + (hex ? 2 : 0), v.data() + v.size(), x, hex ? 16 : 10);
    if (v.empty() || ec != std::errc() || p != v.data() + v.size() || x < 0) {
      fail(n, std::string(attr) + " '" + v + "': expected a whole number");
      return fallback;
    }
    return x;
  }

  // "16.0 GT/s PCIe" x16 -> 31.51 GB/s; 0 when the width is 0 (VMs write that).
  double pcie_GBps(const pugi::xml_node& n) {
    const std::string speed = n.attribute("link_speed").value();
    const int width = integer(n, "link_width", 0);
    if (speed.empty() || width == 0) return 0;
    double gts = 0;
    auto [p, ec] = std::from_chars(speed.data(), speed.data() + speed.size(), gts);
    const std::string unit = std::string(p, speed.data() + speed.size());
    if (ec != std::errc() || !(gts > 0 && gts <= 256) || !unit.starts_with(" GT/s")) {
      fail(n, "link_speed '" + speed + "': expected e.g. '16.0 GT/s PCIe'");
      return 0;
    }
    return std::round(lane_GBps(gts) * width * 100) / 100;  // to 10 MB/s: no false precision in files
  }

  void gpu(const pugi::xml_node& pci, const pugi::xml_node& gpu_node, int numa, int pcie_switch) {
    NodeFacts::Gpu g;
    g.name = pci.attribute("busid").value();
    g.busid = g.name;
    g.numa = numa;
    g.pcie_switch = pcie_switch;
    g.pcie_GBps = pcie_GBps(pci);
    if (class_is(pci.attribute("vendor").value(), "0x10de"))
      g.pci_device = static_cast<unsigned>(std::strtoul(pci.attribute("device").value(), nullptr, 16));
    if (gpu_node) {
      g.sm = integer(gpu_node, "sm", 0);
      gpu_dev.push_back(integer(gpu_node, "dev", -1));
      for (const pugi::xml_node& l : gpu_node.children("nvlink")) {
        const char* tclass = l.attribute("tclass").value();
        const int count = integer(l, "count", 1);
        if (class_is(tclass, "0x0680"))
          g.nvswitch_links += count;
        else if (class_is(tclass, "0x03"))
          peers.push_back({facts.gpus.size(), l.attribute("target").value(), count});
        else
          fail(l, std::string("to a device of class '") + tclass +
                      "': NVLink to a CPU (IBM POWER) is not a node type topoplan can build");
      }
    } else {
      facts.nvlinks_listed = false;
      gpu_dev.push_back(-1);
    }
    facts.gpus.push_back(g);
  }

  void nic(const pugi::xml_node& at, const pugi::xml_node& nic_node, int numa, int pcie_switch) {
    // A <nic> straight under a <cpu> has no bus ID of its own.
    const std::string busid = at.attribute("busid").value();
    auto add = [&](const std::string& rdma, double gbit_s) {
      facts.nics.push_back({.name = rdma.empty() ? busid : rdma,
                            .busid = busid,
                            .rdma = rdma,
                            .numa = numa,
                            .pcie_switch = pcie_switch,
                            .gbit_s = gbit_s});
    };
    if (!nic_node) return add("", 0);
    bool any = false;
    for (const pugi::xml_node& net : nic_node.children("net")) {
      const int mbps = integer(net, "speed", 0);
      add(net.attribute("name").value(), mbps / 1000.0);
      any = true;
    }
    if (!any) add("", 0);
  }

  // One <pci> subtree under a NUMA node; `pcie_switch` is the top-level bridge it hangs from.
  void pci(const pugi::xml_node& n, int numa, int pcie_switch) {
    const char* cls = n.attribute("class").value();
    if (!n.attribute("busid")) return fail(n, "has no busid");
    const pugi::xml_node gpu_node = n.child("gpu"), nic_node = n.child("nic");
    if (gpu_node || (!nic_node && class_is(cls, "0x03"))) return gpu(n, gpu_node, numa, pcie_switch);
    if (nic_node || class_is(cls, "0x02")) return nic(n, nic_node, numa, pcie_switch);
    for (const pugi::xml_node& child : n.children()) {
      if (std::strcmp(child.name(), "pci") == 0)
        pci(child, numa, pcie_switch);
      else if (std::strcmp(child.name(), "nic") == 0)
        nic(n, child, numa, pcie_switch);
    }
  }
};

// The PCIe generation a x16 link's rate stands for, as NCCL writes link_speed.
std::string link_speed(double x16_GBps) {
  static constexpr double kGenerations_GTs[] = {2.5, 5, 8, 16, 32, 64};
  double best = kGenerations_GTs[0];
  for (double gts : kGenerations_GTs)
    if (x16_GBps >= lane_GBps(gts) * 16 * 0.9) best = gts;
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GT/s PCIe", best);
  return text;
}

}  // namespace

Result<NodeFacts> nccl_topo_xml_parse(const std::string& text, const std::string& where) {
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_buffer(text.data(), text.size());
  if (!parsed) {
    return Error{where + ":" + std::to_string(line_at(text, parsed.offset)) +
                 ": not well-formed XML: " + parsed.description()};
  }
  const pugi::xml_node system = doc.child("system");
  if (!system) return Error{where + ": expected NCCL's topology XML: a <system version=\"1\"> element at the top"};
  Reader r{text, where, {}, {}, {}, {}};
  r.facts.format = where + " (NCCL topology XML)";
  int top = 0;
  for (const pugi::xml_node& cpu : system.children("cpu")) {
    const int numa = r.integer(cpu, "numaid", -1);
    const std::string vendor = cpu.attribute("vendor").value();
    if (vendor == "GenuineIntel") r.facts.cpu_vendor = "Intel";
    if (vendor == "AuthenticAMD") r.facts.cpu_vendor = "AMD";
    for (const pugi::xml_node& child : cpu.children()) {
      // A GPU or NIC straight under the NUMA node sits on a root port of its own.
      if (std::strcmp(child.name(), "pci") == 0)
        r.pci(child, numa, class_is(child.attribute("class").value(), "0x0604") ? top++ : -1);
      else if (std::strcmp(child.name(), "nic") == 0)
        r.nic(child, child, numa, -1);
    }
  }
  if (!r.error.empty()) return Error{r.error};
  std::vector<std::string> busids;
  for (const NodeFacts::Gpu& g : r.facts.gpus) busids.push_back(g.name);
  const std::vector<size_t> order = cuda_order(r.gpu_dev, busids);
  NodeFacts f = r.facts;
  std::map<std::string, size_t> index_of;
  for (size_t i = 0; i < order.size(); ++i) {
    f.gpus[i] = r.facts.gpus[order[i]];
    index_of[f.gpus[i].name] = i;
  }
  if (!r.peers.empty()) {
    std::vector<size_t> rank_of(order.size());
    for (size_t i = 0; i < order.size(); ++i) rank_of[order[i]] = i;
    f.peer_nvlinks.assign(f.gpus.size(), std::vector<int>(f.gpus.size()));
    for (const Reader::PeerLink& p : r.peers) {
      auto to = index_of.find(p.target);
      if (to == index_of.end())
        return Error{where + ": an <nvlink> targets GPU " + p.target + ", which the file does not list"};
      f.peer_nvlinks[rank_of[p.gpu]][to->second] += p.count;
    }
  }
  return f;
}

std::string nccl_topo_xml_write(const NodeType& t) {
  pugi::xml_document doc;
  const bool made_up = t.gpu_busids.empty() || (t.nics > 0 && t.nic_busids.empty());
  doc.append_child(pugi::node_comment)
      .set_value(
          (" NCCL_TOPO_FILE for one " + t.name + " server (" + std::to_string(t.gpus) + " x " + t.gpu_model +
           "), written by topoplan" +
           (made_up ? ". Its bus IDs are made up: NCCL matches devices by bus ID, so replace them with the machine's "
                      "(lspci -D), or import the server from NCCL or hwloc XML to keep them. "
                    : ". ") +
           "NCCL finds NVLinks and NIC ports at run time. ")
              .c_str());
  pugi::xml_node system = doc.append_child("system");
  system.append_attribute("version") = "1";
  const bool intel = t.cpu_model.starts_with("Xeon"), amd = t.cpu_model.starts_with("EPYC");
  const int switches = t.gpus / t.gpus_per_pcie_switch;
  const std::string speed = link_speed(t.pcie_GBps);
  auto pci = [&](pugi::xml_node parent, const std::string& busid, const char* cls) {
    pugi::xml_node p = parent.append_child("pci");
    p.append_attribute("busid") = busid.c_str();
    p.append_attribute("class") = cls;
    p.append_attribute("link_speed") = speed.c_str();
    p.append_attribute("link_width") = "16";
    return p;
  };
  auto hex_id = [](const char* fmt, int n) {
    char buf[32];
    std::snprintf(buf, sizeof buf, fmt, n);
    return std::string(buf);
  };
  for (int c = 0; c < t.cpus; ++c) {
    pugi::xml_node cpu = system.append_child("cpu");
    cpu.append_attribute("numaid") = c;
    if (intel || amd) {
      cpu.append_attribute("arch") = "x86_64";
      cpu.append_attribute("vendor") = intel ? "GenuineIntel" : "AuthenticAMD";
    }
    for (int s = 0; s < switches; ++s) {
      if (s * t.cpus / switches != c) continue;
      pugi::xml_node bridge = pci(cpu, hex_id("ffff:ff:%02x.0", s + 1), "0x060400");
      for (int g = s * t.gpus_per_pcie_switch; g < (s + 1) * t.gpus_per_pcie_switch; ++g)
        pci(bridge, t.gpu_busids.empty() ? hex_id("0000:%02x:00.0", 0x10 + g) : t.gpu_busids[static_cast<size_t>(g)],
            "0x030200");
      for (int n = 0; n < t.nics; ++n) {
        const int under = t.nic_switch.empty() ? n * switches / t.nics : t.nic_switch[static_cast<size_t>(n)];
        if (under == s)
          pci(bridge, t.nic_busids.empty() ? hex_id("0000:%02x:00.0", 0x90 + n) : t.nic_busids[static_cast<size_t>(n)],
              "0x020700");
      }
    }
  }
  std::ostringstream out;
  doc.save(out, "  ", pugi::format_default | pugi::format_no_declaration);
  return out.str();
}

bool nccl_xml_sniff(std::string_view line, std::string_view text) {
  return line.starts_with('<') && xml_root(text) == "system";
}

}  // namespace topoplan

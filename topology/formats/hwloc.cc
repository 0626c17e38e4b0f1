#include "topology/formats/hwloc.h"

#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <pugixml.hpp>
#include <string>

#include "topology/formats/import_format.h"

namespace topoplan {
namespace {

constexpr unsigned kNvidiaVendor = 0x10de;

// The OS device of `type` under a PCI device, or nullptr.
hwloc_obj_t os_device(hwloc_obj_t pci, hwloc_obj_osdev_type_e type, const char* prefix = "") {
  for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling)
    if (c->type == HWLOC_OBJ_OS_DEVICE && c->attr->osdev.type == type && c->name &&
        std::strncmp(c->name, prefix, std::strlen(prefix)) == 0)
      return c;
  return nullptr;
}

// The bridge right below the host bridge that leads to `obj` (its PCIe switch, or the root port
// of one), as hwloc's global index; -1 when `obj` sits on the host bridge itself.
long pcie_switch_of(hwloc_obj_t obj) {
  hwloc_obj_t top = nullptr;
  for (hwloc_obj_t p = obj->parent; p && p->type == HWLOC_OBJ_BRIDGE; p = p->parent) {
    if (p->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST) break;
    top = p;
  }
  return top ? static_cast<long>(top->gp_index) : -1;
}

int numa_of(hwloc_topology_t topo, hwloc_obj_t obj) {
  hwloc_obj_t cpu_side = hwloc_get_non_io_ancestor_obj(topo, obj);
  if (!cpu_side || !cpu_side->nodeset || hwloc_bitmap_iszero(cpu_side->nodeset)) return -1;
  return hwloc_bitmap_first(cpu_side->nodeset);
}

std::string busid(hwloc_obj_t pci) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", pci->attr->pcidev.domain, pci->attr->pcidev.bus,
                pci->attr->pcidev.dev, pci->attr->pcidev.func);
  return buf;
}

// The number after a prefix in an OS device's name ("cuda3" -> 3), -1 when there is none.
int os_index(hwloc_obj_t osdev, const char* prefix) {
  if (!osdev) return -1;
  const char* digits = osdev->name + std::strlen(prefix);
  return *digits ? std::atoi(digits) : -1;
}

// Loads a topology hwloc has been told where to read; `xml` says whether that is a file's text.
Result<HwlocHost> discover(const std::string& where, const std::string* xml) {
  // hwloc loads its plugins with the first topology and unloads them with the last. Unloading the
  // PCI plugin unmaps libpciaccess, whose own allocations (never freed) then read as leaks to
  // LeakSanitizer; one topology kept for the process's life keeps them loaded and reachable.
  static const hwloc_topology_t keep_plugins = [] {
    hwloc_topology_t t = nullptr;
    return hwloc_topology_init(&t) == 0 ? t : nullptr;
  }();
  (void)keep_plugins;
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return Error{where + ": hwloc could not start: " + std::strerror(errno)};
  std::unique_ptr<hwloc_topology, void (*)(hwloc_topology_t)> topo(raw, hwloc_topology_destroy);
  hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_ALL);
  if (xml && hwloc_topology_set_xmlbuffer(raw, xml->data(), static_cast<int>(xml->size()) + 1) != 0)
    return Error{where + ": hwloc cannot read it as XML: " + std::strerror(errno)};
  if (hwloc_topology_load(raw) != 0)
    return Error{where + ": hwloc could not load it" + (xml ? " (not an `lstopo --of xml` export?)" : "") + ": " +
                 std::strerror(errno)};
  const bool is_xml = xml != nullptr;
  HwlocHost out;
  NodeFacts& f = out.facts;
  f.format = is_xml ? where + " (hwloc XML)" : where;
  out.numa_nodes = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_NUMANODE);
  f.cores = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_CORE);
  if (hwloc_obj_t package = hwloc_get_obj_by_type(raw, HWLOC_OBJ_PACKAGE, 0)) {
    const char* vendor = hwloc_obj_get_info_by_name(package, "CPUVendor");
    if (vendor && std::strcmp(vendor, "GenuineIntel") == 0) f.cpu_vendor = "Intel";
    if (vendor && std::strcmp(vendor, "AuthenticAMD") == 0) f.cpu_vendor = "AMD";
    if (const char* model = hwloc_obj_get_info_by_name(package, "CPUModel")) {
      out.cpu_model = model;
      out.cpu_model.erase(out.cpu_model.find_last_not_of(' ') + 1);  // /proc/cpuinfo pads it
    }
  }

  struct Found {
    hwloc_obj_t pci;
    int order;  // CUDA or NVML index, -1 unknown
  };
  std::vector<Found> gpus;
  for (hwloc_obj_t pci = hwloc_get_next_pcidev(raw, nullptr); pci; pci = hwloc_get_next_pcidev(raw, pci)) {
    const unsigned cls = pci->attr->pcidev.class_id;
    if (cls >> 8 == 0x03 && pci->attr->pcidev.vendor_id == kNvidiaVendor) {
      int order = os_index(os_device(pci, HWLOC_OBJ_OSDEV_COPROC, "cuda"), "cuda");
      if (order < 0) order = os_index(os_device(pci, HWLOC_OBJ_OSDEV_GPU, "nvml"), "nvml");
      gpus.push_back({pci, order});
    } else if (hwloc_obj_t rdma = os_device(pci, HWLOC_OBJ_OSDEV_OPENFABRICS)) {
      // Any device with an RDMA interface: older InfiniBand HCAs are PCI class 0x0c06, not 0x02.
      f.nics.push_back({.name = rdma->name,
                        .busid = busid(pci),
                        .rdma = rdma->name,
                        .numa = numa_of(raw, pci),
                        .pcie_switch = static_cast<int>(pcie_switch_of(pci))});
    } else if (cls >> 8 == 0x02) {
      hwloc_obj_t net = os_device(pci, HWLOC_OBJ_OSDEV_NETWORK);
      out.other_nics.push_back(net ? net->name : busid(pci));
    }
  }
  std::vector<int> index;
  std::vector<std::string> busids;
  for (const Found& g : gpus) index.push_back(g.order), busids.push_back(busid(g.pci));
  std::map<hwloc_obj_t, size_t> gpu_index;
  for (size_t i : cuda_order(index, busids)) {
    const Found& g = gpus[i];
    NodeFacts::Gpu gpu;
    gpu.name = busid(g.pci);
    gpu.busid = gpu.name;
    gpu.numa = numa_of(raw, g.pci);
    gpu.pcie_switch = static_cast<int>(pcie_switch_of(g.pci));
    gpu.pcie_GBps =
        std::round(double{g.pci->attr->pcidev.linkspeed} * 100) / 100;  // a float in hwloc: to 10 MB/s, in double
    gpu.pci_device = g.pci->attr->pcidev.device_id;
    gpu_index[g.pci] = f.gpus.size();
    f.gpus.push_back(gpu);
  }

  // NVML's NVLink bandwidth (MB/s) between GPUs and NVSwitches, where hwloc had NVML.
  unsigned nr = 1;
  hwloc_distances_s* d = nullptr;
  f.nvlinks_listed = hwloc_distances_get_by_name(raw, "NVLinkBandwidth", &nr, &d, 0) == 0 && nr == 1;
  if (f.nvlinks_listed) {
    auto pci_of = [](hwloc_obj_t o) { return o && o->type == HWLOC_OBJ_OS_DEVICE ? o->parent : o; };
    for (unsigned i = 0; i < d->nbobjs; ++i) {
      auto g = gpu_index.find(pci_of(d->objs[i]));
      if (g == gpu_index.end()) continue;
      for (unsigned j = 0; j < d->nbobjs; ++j) {
        hwloc_obj_t to = pci_of(d->objs[j]);
        const double GBps = static_cast<double>(d->values[i * d->nbobjs + j]) / 1000;
        if (i == j || GBps == 0) continue;
        // NVSwitches are PCI class 0x0680; hwloc also tags them, which holds where the class reads 0.
        const bool nvswitch =
            to && to->type == HWLOC_OBJ_PCI_DEVICE &&
            (to->attr->pcidev.class_id == 0x0680 || (to->subtype && std::strcmp(to->subtype, "NVSwitch") == 0));
        if (nvswitch) {
          f.gpus[g->second].nvswitch_GBps += GBps;
        } else if (gpu_index.contains(to)) {
          if (f.peer_nvlinks.empty()) f.peer_nvlinks.assign(f.gpus.size(), std::vector<int>(f.gpus.size()));
          // NVML reports bandwidth; a node type needs links, and NVLink2 to 4 run 25 GB/s each.
          f.peer_nvlinks[g->second][gpu_index[to]] = std::max(1, static_cast<int>(GBps / 25 + 0.5));
        }
      }
    }
    hwloc_distances_release(raw, d);
  } else if (d) {
    hwloc_distances_release(raw, d);
  }
  return out;
}

// hwloc's XML reader trusts the sets it reads: an object without its nodeset crashes it (found by
// fuzzing libhwloc 2.9). Every object but the I/O ones carries its four sets, the root also its
// allowed sets, as every lstopo export writes them.
std::string xml_problem(const std::string& text, const std::string& where) {
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_buffer(text.data(), text.size());
  if (!parsed) return where + ": not XML: " + parsed.description() + " at byte " + std::to_string(parsed.offset);
  const pugi::xml_node top = doc.child("topology");
  if (!top) return where + ": expected <topology> (an `lstopo --of xml` export)";
  std::string problem;
  // As lstopo writes sets: 32-bit words "0x0000ffff" joined by commas, the first "0xf...f" for an
  // infinite set; hwloc asserts (and aborts) on some other forms.
  auto bitmap_ok = [](const std::string& text) {
    size_t at = 0;
    for (bool first = true;; first = false) {
      const size_t end = std::min(text.find(',', at), text.size());
      const std::string word = text.substr(at, end - at);
      const bool hex = word.size() > 2 && word.size() <= 10 && word.starts_with("0x") &&
                       word.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string::npos;
      if (!hex && !(first && word == "0xf...f")) return false;
      if (end == text.size()) return true;
      at = end + 1;
    }
  };
  auto check = [&](pugi::xml_node object, bool root, auto&& self) -> void {
    for (pugi::xml_attribute a : object.attributes()) {
      const std::string name = a.name();
      if (name.ends_with("set") && !bitmap_ok(a.value()) && problem.empty())
        problem = where + ": object " + object.attribute("type").value() + " (gp_index " +
                  object.attribute("gp_index").value() + ") has " + name + " '" + a.value() +
                  "': expected hex words as lstopo writes them (0x000000ff,0xffffffff)";
    }
    const std::string type = object.attribute("type").value();
    const bool io = type == "Bridge" || type == "PCIDev" || type == "OSDev" || type == "Misc";
    // Enumerations hwloc stores as read: a value past the enum is undefined behaviour to read back.
    const std::string bridge = object.attribute("bridge_type").value(), osdev = object.attribute("osdev_type").value();
    if (type == "Bridge" && bridge != "0-1" && bridge != "1-1" && problem.empty())
      problem = where + ": Bridge (gp_index " + object.attribute("gp_index").value() + ") has bridge_type '" + bridge +
                "': expected 0-1 (host to PCI) or 1-1 (PCI to PCI)";
    if (type == "OSDev" && (osdev.size() != 1 || osdev[0] < '0' || osdev[0] > '0' + HWLOC_OBJ_OSDEV_COPROC) &&
        problem.empty())
      problem = where + ": OSDev (gp_index " + object.attribute("gp_index").value() + ") has osdev_type '" + osdev +
                "': expected 0 to " + std::to_string(HWLOC_OBJ_OSDEV_COPROC);
    if (!io)
      for (const char* set :
           {"cpuset", "complete_cpuset", "nodeset", "complete_nodeset", "allowed_cpuset", "allowed_nodeset"}) {
        if (!root && std::strncmp(set, "allowed", 7) == 0) continue;
        if (!object.attribute(set) && problem.empty())
          problem = where + ": object " + (type.empty() ? "without a type" : type) + " (gp_index " +
                    object.attribute("gp_index").value() + ") has no " + set +
                    ": not an `lstopo --of xml` export, or a damaged one";
      }
    for (pugi::xml_node child : object.children("object")) self(child, false, self);
  };
  for (pugi::xml_node object : top.children("object")) check(object, true, check);
  return problem;
}

}  // namespace

Result<HwlocHost> hwloc_local() { return discover("this host (hwloc)", nullptr); }

Result<HwlocHost> hwloc_xml(const std::string& text, const std::string& where) {
  if (text.size() >= static_cast<size_t>(INT32_MAX)) return Error{where + ": too large for hwloc"};
  if (std::string bad = xml_problem(text, where); !bad.empty()) return Error{bad};
  return discover(where, &text);
}

Result<NodeFacts> hwloc_xml_facts(const std::string& text, const std::string& where) {
  Result<HwlocHost> host = hwloc_xml(text, where);
  RETURN_IF_ERROR(host);
  return host->facts;
}

bool hwloc_xml_sniff(std::string_view line, std::string_view text) {
  return line.starts_with('<') && xml_root(text) == "topology";
}

}  // namespace topoplan

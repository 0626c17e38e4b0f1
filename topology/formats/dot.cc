#include "topology/formats/dot.h"

#include <algorithm>
#include <array>
#include <map>
#include <sstream>

#include "topology/units.h"

namespace topoplan {
namespace {

// Node and edge attributes by kind, parallel to the enums in kinds.h.
constexpr std::array<const char*, kDeviceKinds> kDeviceStyle = {
    "shape=box, style=filled, fillcolor=palegreen",           // gpu
    "shape=hexagon, style=filled, fillcolor=lightgoldenrod",  // nvswitch
    "shape=diamond",                                          // pcie_switch
    "shape=ellipse, style=filled, fillcolor=lightblue",       // cpu
    "shape=box, style=rounded",                               // nic
    "shape=box3d",                                            // switch
    "shape=doubleoctagon",                                    // site_router
};
constexpr std::array<const char*, kLinkKinds> kLinkStyle = {
    "color=green4, penwidth=2",          // NVL
    "color=darkgreen, penwidth=2",       // C2C
    "color=gray40",                      // PCI
    "color=orange, style=dashed",        // SYS
    "color=blue",                        // NET
    "color=red, penwidth=3, style=bold", // DCI
};

// Backslashes are left alone: in DOT strings they are escapes, such as the \n in edge labels.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += '\\';
    out += ch;
  }
  return out + "\"";
}

// Inside a host box the host prefix is noise: "h001/gpu3" shows as "gpu3".
std::string node_line(const Cluster& c, VertexId v) {
  const Device& d = c.device(v);
  size_t slash = d.name.rfind('/');
  std::string label = d.host >= 0 && slash != std::string::npos ? d.name.substr(slash + 1) : d.name;
  return quoted(d.name) + " [label=" + quoted(label) + ", " + kDeviceStyle[static_cast<size_t>(d.kind)] + "];";
}

// Green to red as a link fills; wider as it does.
std::string load_style(double u) {
  const char* colour = u < 0.25 ? "green4" : u < 0.5 ? "gold3" : u < 0.75 ? "darkorange" : "red";
  return std::string("color=") + colour + ", penwidth=" + format_number(1 + 5 * std::min(u, 1.0), 2);
}

std::string percent(double u) { return format_number(100 * u, 1) + "%"; }

std::string draw(const Cluster& c, const DotLoad* load) {
  auto loaded = [&](EdgeId e) { return load->utilization[e] > 0 || load->utilization[e ^ 1u] > 0; };
  std::vector<char> keep(c.num_devices(), load ? 0 : 1);
  if (load)
    for (EdgeId e = 0; e < c.num_edges(); e += 2)
      if (loaded(e)) keep[c.source(e)] = keep[c.target(e)] = 1;
  // Slot 0 holds what belongs to no site; site s is slot s + 1.
  const size_t slots = c.sites().size() + 1;
  std::vector<std::vector<int>> site_hosts(slots);
  std::vector<std::vector<VertexId>> site_devices(slots), host_devices(c.hosts().size());
  std::vector<std::map<int, std::vector<VertexId>>> site_tiers(slots);
  for (size_t h = 0; h < c.hosts().size(); ++h) site_hosts[c.hosts()[h].site + 1].push_back(static_cast<int>(h));
  for (VertexId v = 0; v < c.num_devices(); ++v) {
    if (!keep[v]) continue;
    const Device& d = c.device(v);
    if (d.host >= 0)
      host_devices[d.host].push_back(v);
    else if (is_fabric(d.kind))
      site_tiers[d.site + 1][d.tier].push_back(v);
    else
      site_devices[d.site + 1].push_back(v);  // e.g. an NVL72 rack's NVSwitch, shared by its trays
  }

  std::ostringstream out;
  // Bottom to top: hosts, then leaves, spines, cores and site routers, as fabrics are drawn.
  out << "graph " << quoted(c.name) << " {\n  rankdir=BT;\n  node [fontsize=10];\n  edge [fontsize=8];\n";
  if (load && !load->title.empty()) out << "  label=" << quoted(load->title) << ";\n  labelloc=t;\n";
  for (size_t slot = 0; slot < slots; ++slot) {
    const std::string in = slot == 0 ? "  " : "    ";
    if (slot > 0)
      out << "  subgraph cluster_site_" << slot - 1 << " {\n" << in << "label=" << quoted(c.sites()[slot - 1]) << ";\n";
    for (int h : site_hosts[slot]) {
      if (host_devices[h].empty()) continue;
      out << in << "subgraph cluster_host_" << h << " {\n" << in << "  label=" << quoted(c.hosts()[h].name) << ";\n";
      for (VertexId v : host_devices[h]) out << in << "  " << node_line(c, v) << "\n";
      out << in << "}\n";
    }
    for (VertexId v : site_devices[slot]) out << in << node_line(c, v) << "\n";
    for (const auto& [tier, vs] : site_tiers[slot]) {
      out << in << "{ rank=same;";
      for (VertexId v : vs) out << " " << node_line(c, v);
      out << " }\n";
    }
    if (slot > 0) out << "  }\n";
  }
  for (EdgeId e = 0; e < c.num_edges(); e += 2) {
    const Link& l = c.link(e);
    std::string label, style = kLinkStyle[static_cast<size_t>(l.kind)];
    if (load) {
      if (!loaded(e)) continue;
      // Each direction's share, source to target first.
      label = percent(load->utilization[e]) + " / " + percent(load->utilization[e ^ 1u]);
      style = load_style(std::max(load->utilization[e], load->utilization[e ^ 1u]));
    } else {
      label = format_number(l.bw_gbps, 2) + " GB/s";
      if (l.length_km > 0) label += "\\n" + format_number(l.length_km) + " km";
    }
    out << "  " << quoted(c.device(c.source(e)).name) << " -- " << quoted(c.device(c.target(e)).name)
        << " [label=" << quoted(label) << ", " << style << "];\n";
  }
  out << "}\n";
  return out.str();
}

}  // namespace

std::string save_cluster_dot(const Cluster& c) { return draw(c, nullptr); }

std::string save_cluster_dot(const Cluster& c, const DotLoad& load) { return draw(c, &load); }

}  // namespace topoplan

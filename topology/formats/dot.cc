#include "topology/formats/dot.h"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <sstream>

#include "base/enum_names.h"
#include "base/suggest.h"
#include "base/units.h"
#include "topology/formats/dot_graph.h"

namespace topoplan {
namespace {

constexpr std::array<std::string_view, 2> kDotHostsNames = {"collapse", "expand"};

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
constexpr std::array<const char*, kDeviceKinds> kDeviceNouns = {
    "GPUs", "NVSwitches", "PCIe switches", "CPUs", "NICs", "switches", "site routers",
};
constexpr std::array<const char*, kLinkKinds> kLinkStyle = {
    "color=green4, penwidth=2",           // NVL
    "color=darkgreen, penwidth=2",        // C2C
    "color=gray40",                       // PCI
    "color=orange, style=dashed",         // SYS
    "color=blue",                         // NET
    "color=red, penwidth=3, style=bold",  // DCI
};
constexpr const char* kHostStyle = "shape=box, style=filled, fillcolor=palegreen";
// Blue is no utilization colour, so what explain is about stands out from the load around it.
constexpr const char* kMarked = "color=blue, penwidth=3";
constexpr const char* kHighlighted = "color=blue, fontcolor=blue, style=bold";

// Backslashes are left alone: in DOT strings they are escapes, such as the \n in labels.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += '\\';
    out += ch;
  }
  return out + "\"";
}

std::string percent(double u) { return format_number(100 * u, 1) + "%"; }

// Green to red as a link fills; wider as it does.
const char* load_colour(double u) { return u < 0.25 ? "green4" : u < 0.5 ? "gold3" : u < 0.75 ? "darkorange" : "red"; }
double load_width(double u) { return 1 + 5 * std::min(u, 1.0); }
// Observed over predicted: as predicted in green, twice in gold, four times in orange, beyond in
// red; under 1/1.25 of it in steel blue, under half in purple (the traffic went elsewhere).
const char* ratio_colour(double r) {
  return r <= 0.5    ? "purple"
         : r < 0.8   ? "steelblue3"
         : r <= 1.25 ? "green4"
         : r <= 2    ? "gold3"
         : r <= 4    ? "darkorange"
                     : "red";
}
std::string ratio_text(double r) {
  return r <= 0 ? "-" : r >= kDotBusyUnpredicted ? "busy, none predicted" : "x" + format_number(r, 2);
}

// "8 x H100-SXM" when the hosts' GPUs are one model, else "8 GPUs".
std::string gpus_text(const Cluster& c, const std::vector<int>& hosts) {
  size_t count = 0;
  std::string model;
  bool one_model = true;
  for (int h : hosts)
    for (VertexId g : c.hosts()[static_cast<size_t>(h)].gpus) {
      if (count++ == 0) model = c.device(g).model;
      one_model = one_model && c.device(g).model == model;
    }
  return std::to_string(count) + (one_model && !model.empty() ? " x " + model : " GPUs");
}

std::string node_label(const Cluster& c, const DotNode& n, bool loaded) {
  std::string label;
  if (n.host_box >= 0) {
    // Inside a host box the host prefix is noise: "h001/gpu3" shows as "gpu3".
    const std::string& name = c.device(n.devices.front()).name;
    const size_t slash = name.rfind('/');
    label = slash == std::string::npos ? name : name.substr(slash + 1);
  } else if (!n.hosts.empty()) {
    label =
        n.id + "\\n" + (n.hosts.size() > 1 ? std::to_string(n.hosts.size()) + " hosts\\n" : "") + gpus_text(c, n.hosts);
  } else {
    label = n.id;
    if (n.devices.size() > 1)
      label += "\\n" + std::to_string(n.devices.size()) + " " + kDeviceNouns[static_cast<size_t>(n.kind)];
  }
  if (loaded && n.inside_utilization > 0) label += "\\ninside " + percent(n.inside_utilization);
  return label;
}

std::string node_line(const Cluster& c, const DotNode& n, bool loaded) {
  std::string style = n.hosts.empty() || n.host_box >= 0 ? kDeviceStyle[static_cast<size_t>(n.kind)] : kHostStyle;
  // A folded node reads as a stack.
  if (n.host_box < 0 && (n.hosts.empty() ? n.devices.size() : n.hosts.size()) > 1) style += ", peripheries=2";
  if (n.marked && n.host_box < 0) style += std::string(", ") + kMarked;
  return quoted(n.id) + " [label=" + quoted(node_label(c, n, loaded)) + ", " + style + "];";
}

std::string bundle_line(const DotGraph& g, const DotBundle& b, bool loaded, bool ratio) {
  // Links of one capacity as "8 x 50 GB/s"; of several, their count and sum.
  std::string label =
      b.bw_GBps > 0 ? (b.links == 1 ? "" : std::to_string(b.links) + " x ") + format_number(b.bw_GBps, 2) + " GB/s"
                    : std::to_string(b.links) + " links, " + format_number(b.total_bw_GBps, 2) + " GB/s";
  if (b.length_km > 0) label += "\\n" + format_number(b.length_km) + " km";
  std::string style = kLinkStyle[static_cast<size_t>(b.kind)];
  if (loaded && ratio) {
    label += "\\n" + ratio_text(b.down) + " / " + ratio_text(b.up);
    style = std::string("color=") + ratio_colour(std::max(b.down, b.up)) + ", penwidth=3";
  } else if (loaded) {
    // Each direction's busiest link, downward (or left to right) first.
    label += "\\n" + percent(b.down) + " / " + percent(b.up);
    const double u = std::max(b.down, b.up);
    style = b.highlighted ? std::string(kHighlighted) + ", penwidth=" + format_number(2 + load_width(u), 2)
                          : std::string("color=") + load_colour(u) + ", penwidth=" + format_number(load_width(u), 2);
  }
  const DotNode &upper = g.nodes[b.upper], &lower = g.nodes[b.lower];
  // Sites stand side by side; a link between them on one level must not push one site down.
  if (upper.level == lower.level && upper.site != lower.site) style += ", constraint=false";
  return quoted(upper.id) + " -- " + quoted(lower.id) + " [label=" + quoted(label) + ", " + style + "];";
}

std::string draw(const Cluster& c, const DotLoad* load, DotHosts hosts) {
  const DotGraph g = dot_graph_build(c, load, hosts);
  const bool loaded = load != nullptr;
  // Slot 0 holds what belongs to no site; site s is slot s + 1. Levels top down within a slot.
  const size_t slots = c.sites().size() + 1;
  std::vector<std::map<int, std::vector<uint32_t>, std::greater<>>> ranks(slots);
  std::vector<std::vector<uint32_t>> boxes(c.hosts().size());
  for (uint32_t i = 0; i < g.nodes.size(); ++i) {
    const DotNode& n = g.nodes[i];
    if (n.host_box >= 0)
      boxes[static_cast<size_t>(n.host_box)].push_back(i);
    else
      ranks[static_cast<size_t>(n.site + 1)][n.level].push_back(i);
  }
  std::vector<std::vector<int>> site_hosts(slots);
  for (size_t h = 0; h < c.hosts().size(); ++h)
    site_hosts[static_cast<size_t>(c.hosts()[h].site + 1)].push_back(static_cast<int>(h));

  std::ostringstream out;
  // Top down: site routers, cores, spines, leaves, then hosts, as fabrics are drawn.
  out << "graph " << quoted(c.name) << " {\n  rankdir=TB;\n  node [fontsize=10];\n  edge [fontsize=8];\n";
  if (load && !load->title.empty()) out << "  label=" << quoted(load->title) << ";\n  labelloc=t;\n";
  for (size_t slot = 0; slot < slots; ++slot) {
    const std::string in = slot == 0 ? "  " : "    ";
    if (slot > 0)
      out << "  subgraph cluster_site_" << slot - 1 << " {\n" << in << "label=" << quoted(c.sites()[slot - 1]) << ";\n";
    for (int h : site_hosts[slot]) {
      const std::vector<uint32_t>& box = boxes[static_cast<size_t>(h)];
      if (box.empty()) continue;
      out << in << "subgraph cluster_host_" << h << " {\n"
          << in << "  label=" << quoted(c.hosts()[static_cast<size_t>(h)].name) << ";\n";
      if (g.nodes[box.front()].marked) out << in << "  graph [" << kMarked << "];\n";
      for (uint32_t i : box) out << in << "  " << node_line(c, g.nodes[i], loaded && !load->ratio) << "\n";
      out << in << "}\n";
    }
    for (const auto& [level, nodes] : ranks[slot]) {
      out << in << "{ rank=same;";
      for (uint32_t i : nodes) out << " " << node_line(c, g.nodes[i], loaded && !load->ratio);
      out << " }\n";
    }
    if (slot > 0) out << "  }\n";
  }
  for (const DotBundle& b : g.bundles) out << "  " << bundle_line(g, b, loaded, load && load->ratio) << "\n";
  out << "}\n";
  return out.str();
}

}  // namespace

std::string_view to_string(DotHosts h) { return kDotHostsNames[static_cast<size_t>(h)]; }

std::optional<DotHosts> dot_hosts_from(std::string_view s) { return enum_from<DotHosts>(kDotHostsNames, s); }

std::vector<std::string> dot_hosts_names() { return enum_names(kDotHostsNames); }

Result<DotHosts> dot_hosts_parse(const std::string& text) {
  if (std::optional<DotHosts> h = dot_hosts_from(text)) return *h;
  return Error{"--dot-hosts: unknown value '" + text + "'" + did_you_mean(text, dot_hosts_names()) +
               " (expected collapse or expand)"};
}

std::string save_cluster_dot(const Cluster& c, DotHosts hosts) { return draw(c, nullptr, hosts); }

std::string save_cluster_dot(const Cluster& c, const DotLoad& load, DotHosts hosts) { return draw(c, &load, hosts); }

}  // namespace topoplan

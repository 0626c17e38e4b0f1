#include "topology/formats/nvidia_smi.h"

#include <cctype>
#include <charconv>
#include <map>
#include <sstream>

#include "base/union_find.h"

namespace topoplan {
namespace {

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool is_gpu_name(const std::string& name) {
  return name.size() > 3 && name.starts_with("GPU") && name.find_first_not_of("0123456789", 3) == std::string::npos;
}

// How two devices connect, as the legend says; NV# keeps its link count.
struct Relation {
  enum Kind { self, nvlink, pix, pxb, phb, node, sys } kind = sys;
  int nvlinks = 0;
};

std::optional<Relation> link_of(const std::string& w) {
  if (w == "X") return Relation{Relation::self};
  if (w == "PIX") return Relation{Relation::pix};
  if (w == "PXB") return Relation{Relation::pxb};
  if (w == "PHB") return Relation{Relation::phb};
  if (w == "NODE") return Relation{Relation::node};
  if (w == "SYS" || w == "SOC") return Relation{Relation::sys};  // SOC: drivers before NODE existed
  int n = 0;
  if (w.starts_with("NV") && w.size() > 2) {
    auto [p, ec] = std::from_chars(w.data() + 2, w.data() + w.size(), n);
    if (ec == std::errc() && p == w.data() + w.size() && n > 0 && n <= 1024) return Relation{Relation::nvlink, n};
  }
  return std::nullopt;
}

}  // namespace

Result<NodeFacts> nvidia_smi_topo_parse(const std::string& text, const std::string& where) {
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  auto fail = [&](const std::string& what) { return Error{where + ":" + std::to_string(line_no) + ": " + what}; };

  // The header: device columns, then "CPU Affinity", "NUMA Affinity", "GPU NUMA ID" as present.
  std::vector<std::string> columns;
  std::vector<std::string> extras;
  while (std::getline(in, line)) {
    ++line_no;
    std::vector<std::string> w = words(line);
    if (w.empty()) continue;
    if (!is_gpu_name(w[0]))
      return fail("expected the header of `nvidia-smi topo -m` (GPU0 GPU1 ... CPU Affinity), got '" +
                  line.substr(0, 60) + "'");
    size_t i = 0;
    for (; i < w.size(); ++i) {
      if (w[i] == "CPU" || w[i] == "NUMA" || (w[i] == "GPU" && i + 1 < w.size() && w[i + 1] == "NUMA")) break;
      columns.push_back(w[i]);
    }
    for (std::string extra; i < w.size(); ++i) {
      extra += (extra.empty() ? "" : " ") + w[i];
      if (extra == "CPU Affinity" || extra == "NUMA Affinity" || extra == "GPU NUMA ID")
        extras.push_back(extra), extra.clear();
      else if (i + 1 == w.size())
        return fail("unknown column '" + extra + "' (expected CPU Affinity, NUMA Affinity, GPU NUMA ID)");
    }
    break;
  }
  if (columns.empty()) return Error{where + ": empty: expected the output of `nvidia-smi topo -m`"};
  std::map<std::string, size_t> column_of;
  for (size_t c = 0; c < columns.size(); ++c)
    if (!column_of.emplace(columns[c], c).second) return fail("column '" + columns[c] + "' appears twice");

  // The rows, one per column, in any order; the matrix ends at a blank line or the legend.
  std::vector<std::vector<Relation>> links(columns.size());
  std::vector<std::string> cpu_affinity(columns.size()), numa(columns.size());
  std::vector<bool> seen(columns.size());
  std::map<std::string, std::string> nic_legend;
  bool in_matrix = true;
  while (std::getline(in, line)) {
    ++line_no;
    std::vector<std::string> w = words(line);
    if (w.empty() || w[0] == "Legend:" || w[0] == "NIC") {
      in_matrix = false;
      continue;
    }
    if (!in_matrix) {
      // "  NIC0: mlx5_0" in the NIC legend; the link legend's lines are ignored.
      if (w.size() == 2 && w[0].ends_with(":") && column_of.contains(w[0].substr(0, w[0].size() - 1)))
        nic_legend[w[0].substr(0, w[0].size() - 1)] = w[1];
      continue;
    }
    auto row = column_of.find(w[0]);
    if (row == column_of.end()) return fail("row '" + w[0] + "' is not one of the header's columns");
    const size_t r = row->second;
    if (seen[r]) return fail("row '" + w[0] + "' appears twice");
    seen[r] = true;
    const size_t want = columns.size() + (is_gpu_name(w[0]) ? extras.size() : 0);
    if (w.size() - 1 != want && w.size() - 1 != columns.size())
      return fail(w[0] + ": " + std::to_string(w.size() - 1) + " entries for " + std::to_string(want) + " columns");
    for (size_t c = 0; c < columns.size(); ++c) {
      std::optional<Relation> l = link_of(w[c + 1]);
      if (!l)
        return fail(w[0] + ": '" + w[c + 1] + "' in column " + columns[c] +
                    " is not a link (expected X, NV#, PIX, PXB, PHB, NODE, SYS or SOC)");
      if ((l->kind == Relation::self) != (c == r))
        return fail(w[0] + ": column " + columns[c] + " has '" + w[c + 1] +
                    "'; X marks a device's own column, and only there");
      links[r].push_back(*l);
    }
    for (size_t e = 0; e < extras.size() && columns.size() + 1 + e < w.size(); ++e) {
      if (extras[e] == "CPU Affinity") cpu_affinity[r] = w[columns.size() + 1 + e];
      if (extras[e] == "NUMA Affinity") numa[r] = w[columns.size() + 1 + e];
    }
  }
  for (size_t c = 0; c < columns.size(); ++c)
    if (!seen[c]) return Error{where + ": no row for column " + columns[c] + " (the matrix is cut short?)"};
  for (size_t a = 0; a < columns.size(); ++a)
    for (size_t b = 0; b < columns.size(); ++b)
      if (links[a][b].kind != links[b][a].kind || links[a][b].nvlinks != links[b][a].nvlinks)
        return Error{where + ": " + columns[a] + " -> " + columns[b] + " and " + columns[b] + " -> " + columns[a] +
                     " differ: the matrix must be symmetric"};

  NodeFacts f;
  f.format = where + " (nvidia-smi topo -m)";
  std::vector<size_t> gpu_cols, nic_cols;
  for (size_t c = 0; c < columns.size(); ++c) (is_gpu_name(columns[c]) ? gpu_cols : nic_cols).push_back(c);
  // A PCIe switch is what PIX and PXB pairs share (GPU pairs show NV# instead, so NICs often tie them).
  UnionFind groups(columns.size());
  for (uint32_t a = 0; a < columns.size(); ++a)
    for (uint32_t b = 0; b < columns.size(); ++b)
      if (links[a][b].kind == Relation::pix || links[a][b].kind == Relation::pxb) groups.join(a, b);
  std::vector<int> group_size(columns.size());
  for (uint32_t c = 0; c < columns.size(); ++c) ++group_size[groups.find(c)];
  auto switch_of = [&](uint32_t c) { return group_size[groups.find(c)] > 1 ? static_cast<int>(groups.find(c)) : -1; };

  // NUMA nodes: the NUMA Affinity column, else one per distinct CPU affinity.
  std::map<std::string, int> affinity_ids;
  auto numa_of = [&](size_t c) -> int {
    int n = -1;
    if (!numa[c].empty() && numa[c] != "N/A") {
      auto [p, ec] = std::from_chars(numa[c].data(), numa[c].data() + numa[c].size(), n);
      if (ec != std::errc() || p != numa[c].data() + numa[c].size() || n < 0) return -2;
      return n;
    }
    if (cpu_affinity[c].empty() || cpu_affinity[c] == "N/A") return -1;
    return affinity_ids.emplace(cpu_affinity[c], static_cast<int>(affinity_ids.size())).first->second;
  };
  for (size_t c : gpu_cols) {
    NodeFacts::Gpu g;
    g.name = columns[c];
    g.numa = numa_of(c);
    if (g.numa == -2)
      return Error{where + ": " + g.name + ": NUMA Affinity '" + numa[c] + "' is not a NUMA node number"};
    g.pcie_switch = switch_of(c);
    f.gpus.push_back(g);
  }
  for (size_t c : nic_cols) {
    NodeFacts::Nic n;
    n.name = nic_legend.contains(columns[c]) ? nic_legend[columns[c]] : columns[c];
    // Without a legend, older drivers head the column with the RDMA name itself (mlx5_2).
    if (!n.name.starts_with("NIC")) n.rdma = n.name;
    n.pcie_switch = switch_of(c);
    // A NIC shares the NUMA node of any GPU it reaches without the socket link.
    for (size_t i = 0; i < gpu_cols.size() && n.numa < 0; ++i)
      if (links[c][gpu_cols[i]].kind != Relation::sys) n.numa = f.gpus[i].numa;
    f.nics.push_back(n);
  }
  f.peer_nvlinks.assign(gpu_cols.size(), std::vector<int>(gpu_cols.size()));
  for (size_t a = 0; a < gpu_cols.size(); ++a)
    for (size_t b = 0; b < gpu_cols.size(); ++b) f.peer_nvlinks[a][b] = links[gpu_cols[a]][gpu_cols[b]].nvlinks;
  return f;
}

bool nvidia_smi_sniff(std::string_view line, std::string_view) {
  return line.starts_with("GPU0") && (line.size() == 4 || std::isspace(static_cast<unsigned char>(line[4])));
}

}  // namespace topoplan

#include "topology/down.h"

#include <algorithm>

#include "base/suggest.h"
#include "base/words.h"

namespace topoplan {
namespace {

// Every host and device name, for "did you mean".
std::vector<std::string> all_names(const Cluster& c) {
  std::vector<std::string> names;
  names.reserve(c.hosts().size() + c.num_devices());
  for (const Host& h : c.hosts()) names.push_back(h.name);
  for (VertexId v = 0; v < c.num_devices(); ++v) names.push_back(c.device(v).name);
  return names;
}

}  // namespace

std::vector<VertexId> DownSet::gpus_up(const Cluster& c, int host) const {
  std::vector<VertexId> out;
  for (VertexId g : c.hosts()[static_cast<size_t>(host)].gpus)
    if (!device_down(g)) out.push_back(g);
  return out;
}

int DownSet::gpus_up_count(const Cluster& c, int host) const {
  const std::vector<VertexId>& gpus = c.hosts()[static_cast<size_t>(host)].gpus;
  if (!any()) return static_cast<int>(gpus.size());
  return static_cast<int>(std::ranges::count_if(gpus, [&](VertexId g) { return !device_down(g); }));
}

bool DownSet::host_whole(const Cluster& c, int host) const {
  if (!any()) return true;
  const Host& h = c.hosts()[static_cast<size_t>(host)];
  for (VertexId g : h.gpus)
    if (device_down(g)) return false;
  for (VertexId n : h.nics) {
    if (device_down(n)) return false;
    for (EdgeId e : c.out_edges(n))
      if (edge_down(e) || device_down(c.target(e))) return false;
  }
  return true;
}

Result<DownSet> down_parse(const Cluster& c, const std::vector<std::string>& entries) {
  DownSet d;
  d.device.assign(c.num_devices(), false);
  d.edge.assign(c.num_edges(), false);
  std::vector<std::string> names;  // filled on the first unknown name only
  auto unknown = [&](const std::string& name) {
    if (names.empty()) names = all_names(c);
    return Error{"--exclude: no host, device or link '" + name + "'" + did_you_mean(name, names)};
  };
  for (const std::string& raw : entries) {
    const std::string entry(trim(raw));
    if (entry.empty()) return Error{"--exclude: empty name in the list"};
    const bool both = entry.find("<->") != std::string::npos;
    const size_t arrow = both ? entry.find("<->") : entry.find("->");
    if (arrow != std::string::npos) {
      const std::string a(trim(std::string_view(entry).substr(0, arrow))),
          b(trim(std::string_view(entry).substr(arrow + (both ? 3 : 2))));
      std::optional<VertexId> va = c.find(a), vb = c.find(b);
      if (!va) return unknown(a);
      if (!vb) return unknown(b);
      bool linked = false;
      for (EdgeId e : c.out_edges(*va))
        if (c.target(e) == *vb) {
          d.edge[e] = d.edge[Cluster::reverse(e)] = linked = true;
        }
      if (!linked) return Error{"--exclude: '" + a + "' and '" + b + "' are not linked"};
    } else if (std::optional<int> h = c.host_index(entry)) {
      const Host& host = c.hosts()[static_cast<size_t>(*h)];
      for (VertexId v : host.gpus) d.device[v] = true;
      for (VertexId v : host.nics) d.device[v] = true;
    } else if (std::optional<VertexId> v = c.find(entry)) {
      d.device[*v] = true;
    } else {
      return unknown(entry);
    }
    d.names.push_back(entry);
  }
  if (d.names.empty()) return DownSet{};
  return d;
}

DownNames down_names(const Cluster& c) {
  DownNames out;
  for (const Host& h : c.hosts()) out.hosts.push_back(h.name);
  for (VertexId v = 0; v < c.num_devices(); ++v) {
    out.devices.emplace_back(c.device(v).kind, c.device(v).name);
    // Each cable once, from its lower vertex; a bundle's parallel ports are one entry.
    std::vector<VertexId> peers;
    for (EdgeId e : c.out_edges(v))
      if (const VertexId t = c.target(e); t > v && std::find(peers.begin(), peers.end(), t) == peers.end())
        peers.push_back(t);
    for (VertexId t : peers) out.links.push_back(c.device(v).name + "<->" + c.device(t).name);
  }
  return out;
}

}  // namespace topoplan

#include "topology/formats/dot_graph.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "base/hostlist.h"
#include "base/sort_unique.h"
#include "topology/locality.h"

namespace topoplan {
namespace {

int level_of(const Device& d) {
  if (d.host >= 0) return 0;
  return is_fabric(d.kind) ? d.tier : -1;
}

class Builder {
 public:
  Builder(const Cluster& c, const DotLoad* load) : c_(c), load_(load), keep_(c.num_devices(), load ? 0 : 1) {
    g_.node_of.assign(c.num_devices(), kNoDotNode);
    if (load)
      for (EdgeId e = 0; e < c.num_edges(); e += 2)
        if (drawn(e)) keep_[c.source(e)] = keep_[c.target(e)] = 1;
  }

  DotGraph build(DotHosts hosts) {
    if (hosts == DotHosts::expand) {
      for (VertexId v = 0; v < c_.num_devices(); ++v)
        if (keep_[v]) add_node({v}, c_.device(v).host);
    } else {
      fold_hosts();
      // Nearest the hosts first, so each switch's neighbours toward the hosts are already drawn.
      std::map<int, std::vector<VertexId>> levels;
      for (VertexId v = 0; v < c_.num_devices(); ++v)
        if (keep_[v] && c_.device(v).host < 0) levels[level_of(c_.device(v))].push_back(v);
      for (const auto& [level, vs] : levels) fold_level(vs);
    }
    bundle();
    // Host names and device names are separate namespaces in an explicit graph.
    std::set<std::string> ids;
    for (DotNode& n : g_.nodes)
      while (!ids.insert(n.id).second) n.id += "'";
    return std::move(g_);
  }

 private:
  bool drawn(EdgeId e) const {
    return !load_ || load_->utilization[e] > 0 || load_->utilization[Cluster::reverse(e)] > 0;
  }

  void add_node(std::vector<VertexId> devices, int host_box = -1) {
    const Device& first = c_.device(devices.front());
    DotNode n;
    n.level = level_of(first);
    n.site = first.site;
    n.kind = first.kind;
    n.host_box = host_box;
    if (host_box >= 0) n.hosts = {host_box};
    std::vector<std::string> names;
    for (VertexId v : devices) names.push_back(c_.device(v).name);
    n.id = hostlist_compress(names);
    for (VertexId v : devices) g_.node_of[v] = static_cast<uint32_t>(g_.nodes.size());
    n.devices = std::move(devices);
    g_.nodes.push_back(std::move(n));
  }

  // One node per host while the hosts fit a rank; past that, the hosts of each NVLink domain, leaf
  // group, pod or site, the finest that fits: hosts under the same leaves share every fabric link
  // above them, so the fabric keeps its shape, and the edge to their leaves shows the busiest link.
  void fold_hosts() {
    const std::vector<Host>& hosts = c_.hosts();
    std::vector<int> shown;
    {
      std::vector<char> any(hosts.size(), 0);
      for (VertexId v = 0; v < c_.num_devices(); ++v)
        if (keep_[v] && c_.device(v).host >= 0) any[static_cast<size_t>(c_.device(v).host)] = 1;
      for (size_t h = 0; h < hosts.size(); ++h)
        if (any[h]) shown.push_back(static_cast<int>(h));
    }
    const Locality& loc = locality_of(c_);
    Level by = Level::site;
    for (Level l : {Level::host, Level::domain, Level::leaf_group, Level::pod}) {
      std::set<int> units;
      for (int h : shown) units.insert(loc.unit(h, l));
      if (units.size() <= kDotMaxRankWidth) {
        by = l;
        break;
      }
    }
    std::map<int, uint32_t> node_of_unit;
    std::vector<uint32_t> node_of_host(hosts.size(), kNoDotNode);
    for (int h : shown) {
      auto [it, fresh] = node_of_unit.try_emplace(loc.unit(h, by), static_cast<uint32_t>(g_.nodes.size()));
      if (fresh) {
        DotNode n;
        n.site = hosts[static_cast<size_t>(h)].site;
        g_.nodes.push_back(std::move(n));
      }
      g_.nodes[it->second].hosts.push_back(h);
      node_of_host[static_cast<size_t>(h)] = it->second;
    }
    for (VertexId v = 0; v < c_.num_devices(); ++v) {
      const int h = c_.device(v).host;
      if (!keep_[v] || h < 0) continue;
      g_.node_of[v] = node_of_host[static_cast<size_t>(h)];
      g_.nodes[g_.node_of[v]].devices.push_back(v);
    }
    for (uint32_t i = 0; i < g_.nodes.size(); ++i) {
      std::vector<std::string> names;
      for (int h : g_.nodes[i].hosts) names.push_back(hosts[static_cast<size_t>(h)].name);
      g_.nodes[i].id = hostlist_compress(names);
    }
  }

  // The devices of one level above or beside the hosts. Switches of a site with the same
  // neighbours toward the hosts fold into one node: ECMP spreads traffic over them alike, so to a
  // reader they are one wider switch (a scalable unit's rail leaves, a pod's spines), and their
  // edges, a complete bipartite tangle between two ranks, become one each. If the level is still too
  // wide, the site's whole level is one node.
  void fold_level(const std::vector<VertexId>& vs) {
    // Groups in order of their first device, so the drawing keeps the cluster's order.
    std::map<std::pair<int, std::vector<uint32_t>>, size_t> group_of;
    std::vector<std::vector<VertexId>> groups;
    size_t edges = 0;
    for (VertexId v : vs) {
      std::vector<uint32_t> toward;
      for (EdgeId e : c_.out_edges(v))
        if (drawn(e) && g_.node_of[c_.target(e)] != kNoDotNode) toward.push_back(g_.node_of[c_.target(e)]);
      sort_unique(toward);
      const size_t n = toward.size();
      auto [it, fresh] = group_of.try_emplace({c_.device(v).site, std::move(toward)}, groups.size());
      if (fresh) {
        groups.emplace_back();
        edges += n;
      }
      groups[it->second].push_back(v);
    }
    if (std::max(groups.size(), edges) > kDotMaxRankWidth) {
      std::map<int, size_t> site_group;
      groups.clear();
      for (VertexId v : vs) {
        auto [it, fresh] = site_group.try_emplace(c_.device(v).site, groups.size());
        if (fresh) groups.emplace_back();
        groups[it->second].push_back(v);
      }
    }
    for (std::vector<VertexId>& group : groups) add_node(std::move(group));
  }

  void bundle() {
    std::vector<char> hot(c_.num_edges(), 0), marked(c_.hosts().size(), 0);
    if (load_) {
      for (EdgeId e : load_->highlight_edges)
        if (e < hot.size()) hot[e & ~1u] = 1;
      for (int h : load_->highlight_hosts)
        if (h >= 0 && static_cast<size_t>(h) < marked.size()) marked[static_cast<size_t>(h)] = 1;
    }
    for (DotNode& n : g_.nodes)
      n.marked = std::any_of(n.hosts.begin(), n.hosts.end(), [&](int h) { return marked[static_cast<size_t>(h)]; });
    std::map<std::pair<uint32_t, uint32_t>, size_t> at;
    for (EdgeId e = 0; e < c_.num_edges(); e += 2) {
      if (!drawn(e)) continue;
      const uint32_t a = g_.node_of[c_.source(e)], b = g_.node_of[c_.target(e)];
      const double forward = load_ ? load_->utilization[e] : 0, back = load_ ? load_->utilization[e + 1] : 0;
      if (a == b) {
        g_.nodes[a].inside_utilization = std::max({g_.nodes[a].inside_utilization, forward, back});
        continue;
      }
      // Upper end first, so dot ranks tiers top down; on one rank, the earlier node.
      const int la = g_.nodes[a].level, lb = g_.nodes[b].level;
      const bool flip = lb > la || (lb == la && b < a);
      const Link& l = c_.link(e);
      auto [it, fresh] = at.try_emplace({flip ? b : a, flip ? a : b}, g_.bundles.size());
      if (fresh) g_.bundles.push_back({flip ? b : a, flip ? a : b, 0, l.kind, l.bw_GBps});
      DotBundle& x = g_.bundles[it->second];
      ++x.links;
      if (x.bw_GBps != l.bw_GBps) x.bw_GBps = 0;
      x.total_bw_GBps += l.bw_GBps;
      x.length_km = std::max(x.length_km, l.length_km);
      x.down = std::max(x.down, flip ? back : forward);
      x.up = std::max(x.up, flip ? forward : back);
      x.highlighted = x.highlighted || hot[e];
    }
  }

  const Cluster& c_;
  const DotLoad* load_;
  std::vector<char> keep_;
  DotGraph g_;
};

}  // namespace

DotGraph dot_graph_build(const Cluster& cluster, const DotLoad* load, DotHosts hosts) {
  return Builder(cluster, load).build(hosts);
}

}  // namespace topoplan

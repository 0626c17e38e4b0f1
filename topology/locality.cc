#include "topology/locality.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

#include "base/union_find.h"

namespace topoplan {
namespace {

// Renumbers per-host keys 0, 1, 2 ... in order of their first host.
int renumber(std::vector<int>& ids) {
  std::unordered_map<int, int> seen;
  for (int& id : ids) id = seen.try_emplace(id, static_cast<int>(seen.size())).first->second;
  return static_cast<int>(seen.size());
}

constexpr const char* kLevelNames[kLevels] = {"host", "NVLink domain", "leaf group", "pod", "site", "cluster"};

}  // namespace

std::string_view to_string(Level l) { return kLevelNames[static_cast<int>(l)]; }

Level Locality::level(int a, int b) const {
  const size_t x = static_cast<size_t>(a), y = static_cast<size_t>(b);
  if (a == b) return Level::host;
  if (domain[x] == domain[y]) return Level::domain;
  if (leaf_group[x] == leaf_group[y]) return Level::leaf_group;
  if (pod[x] == pod[y]) return Level::pod;
  if (site[x] == site[y]) return Level::site;
  return Level::world;
}

int Locality::unit(int host, Level l) const {
  const size_t h = static_cast<size_t>(host);
  switch (l) {
    case Level::host:
      return host;
    case Level::domain:
      return domain[h];
    case Level::leaf_group:
      return leaf_group[h];
    case Level::pod:
      return pod[h];
    case Level::site:
      return site[h];
    default:
      return 0;
  }
}

const Locality& locality_of(const Cluster& c) {
  if (!c.locality_) throw std::logic_error("locality_of: the cluster is not finalized");
  return *c.locality_;
}

Locality locality_derive(const Cluster& c) {
  const std::vector<Host>& hosts = c.hosts();
  const size_t n = hosts.size();
  Locality loc;
  loc.domain.resize(n);
  loc.site.resize(n);
  // Leaves join when one host's NICs reach them; pods join leaves that share a switch above.
  UnionFind leaves(c.num_devices());
  std::vector<VertexId> first_leaf(n, kNoVertex);
  for (size_t h = 0; h < n; ++h) {
    loc.domain[h] = hosts[h].scaleup_domain >= 0 ? hosts[h].scaleup_domain : -1 - static_cast<int>(h);
    loc.site[h] = hosts[h].site;
    for (VertexId nic : hosts[h].nics)
      for (EdgeId e : c.out_edges(nic)) {
        const VertexId leaf = c.target(e);
        if (!is_fabric(c.device(leaf).kind)) continue;
        if (first_leaf[h] == kNoVertex) first_leaf[h] = leaf;
        leaves.join(leaf, first_leaf[h]);
      }
  }
  loc.leaf_group.resize(n);
  for (size_t h = 0; h < n; ++h)
    loc.leaf_group[h] =
        first_leaf[h] == kNoVertex ? -1 - static_cast<int>(h) : static_cast<int>(leaves.find(first_leaf[h]));
  UnionFind pods(c.num_devices());
  std::vector<char> climbed(c.num_devices(), 0);  // a leaf's switches above joined: once, not per NIC under it
  for (size_t h = 0; h < n; ++h) {
    if (first_leaf[h] == kNoVertex) continue;
    for (VertexId nic : hosts[h].nics)
      for (EdgeId e : c.out_edges(nic)) {
        const VertexId leaf = c.target(e);
        if (!is_fabric(c.device(leaf).kind)) continue;
        if (!climbed[leaf]) {
          climbed[leaf] = 1;
          const int tier = c.device(leaf).tier;
          for (EdgeId up : c.out_edges(leaf)) {
            const Device& s = c.device(c.target(up));
            if (s.kind == DeviceKind::switch_ && s.tier > tier) pods.join(c.target(up), leaf);
          }
        }
        pods.join(leaf, first_leaf[h]);
      }
  }
  loc.pod.resize(n);
  for (size_t h = 0; h < n; ++h)
    loc.pod[h] = first_leaf[h] == kNoVertex ? -1 - static_cast<int>(h) : static_cast<int>(pods.find(first_leaf[h]));
  loc.domains = renumber(loc.domain);
  loc.leaf_groups = renumber(loc.leaf_group);
  loc.pods = renumber(loc.pod);
  loc.sites = static_cast<int>(c.sites().size());
  return loc;
}

std::string link_tier(const Cluster& c, EdgeId e) {
  const Link& l = c.link(e);
  if (l.kind == LinkKind::DCI) return "dci";
  if (l.kind != LinkKind::NET) return "host";
  if (c.device(c.source(e)).kind == DeviceKind::site_router || c.device(c.target(e)).kind == DeviceKind::site_router)
    return "site";
  const int tier = std::max(c.device(c.source(e)).tier, c.device(c.target(e)).tier);
  static constexpr const char* kTiers[] = {"host", "leaf", "spine", "core"};
  return tier < 4 ? kTiers[tier] : "tier " + std::to_string(tier);
}

int link_level(const Cluster& c, EdgeId e) {
  const Link& l = c.link(e);
  if (l.kind == LinkKind::DCI) return kDciLevel;
  if (l.kind != LinkKind::NET) return 0;
  const int tier = std::max<int>(c.device(c.source(e)).tier, c.device(c.target(e)).tier);
  return std::clamp(tier, 1, kDciLevel - 1);
}

int largest_domain_gpus(const Cluster& c) {
  std::map<int, int> gpus;
  for (size_t h = 0; h < c.hosts().size(); ++h) {
    const int d = c.hosts()[h].scaleup_domain >= 0 ? c.hosts()[h].scaleup_domain : -1 - static_cast<int>(h);
    gpus[d] += static_cast<int>(c.hosts()[h].gpus.size());
  }
  int most = 0;
  for (const auto& [d, n] : gpus) most = std::max(most, n);
  return most;
}

}  // namespace topoplan

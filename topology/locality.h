// Where each host sits in the fabric's tree: its scale-up (NVLink) domain, its leaf group (the
// leaves its NICs attach to: one scalable unit on a rail-optimized fabric, one ToR elsewhere), its
// pod (leaf groups joined by the same spines) and its site. Derived from the graph, so presets,
// recipes and explicit graphs are read the same way. The planner keeps chatty groups low in this
// tree; the score names links by the tier they climb to.
#pragma once

#include <string>
#include <vector>

#include "topology/cluster.h"

namespace topoplan {

// How far apart two hosts are, nearest first.
enum class Level : uint8_t { host, domain, leaf_group, pod, site, world };
inline constexpr int kLevels = 6;
std::string_view to_string(Level l);  // "host", "NVLink domain", "leaf group", "pod", "site", "cluster"

struct Locality {
  // Per host; groups, pods and domains are numbered in order of their first host.
  std::vector<int> domain, leaf_group, pod, site;
  int domains = 0, leaf_groups = 0, pods = 0, sites = 0;

  // The smallest unit that holds both hosts.
  Level level(int host_a, int host_b) const;
  // The id of `host`'s unit at `level` (host: the host itself; world: 0).
  int unit(int host, Level level) const;
};

// The cluster's, as finalize derived it.
const Locality& locality_of(const Cluster& cluster);
// Derives it from the graph (Cluster::finalize does, once).
Locality locality_derive(const Cluster& cluster);

// The most GPUs that share one NVLink domain (one host's where hosts have none): how wide a TP
// group can be and stay on NVLink.
int largest_domain_gpus(const Cluster& cluster);

// The fabric tier a link reaches, for reports and background load: "host" inside a host or
// NVLink domain, "leaf" for NIC-to-leaf cables, "spine", "core" (or "tier N" above), "site" into a site's DCI routers, "dci".
std::string link_tier(const Cluster& cluster, EdgeId e);

// The highest fabric level a link climbs to: 0 inside hosts and NVLink domains, 1 NIC-to-leaf
// cables, 2 leaf-spine, 3 spine-core and so on up, kDciLevel between sites. The planner breaks
// ties between layouts by the bytes on the highest level.
inline constexpr int kFabricLevels = 8;
inline constexpr int kDciLevel = kFabricLevels - 1;
int link_level(const Cluster& cluster, EdgeId e);

}  // namespace topoplan

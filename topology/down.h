// Devices and links that are down (`--exclude`): nothing is placed on them and no route uses
// them. A host name takes its GPUs and NICs down; a link, both directions of the cable.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "topology/cluster.h"

namespace topoplan {

struct DownSet {
  std::vector<bool> device;        // per vertex; empty when nothing is down
  std::vector<bool> edge;          // per edge id
  std::vector<std::string> names;  // as given, in order, for reports and the plan file

  bool any() const { return !names.empty(); }
  bool device_down(VertexId v) const { return !device.empty() && device[v]; }
  bool edge_down(EdgeId e) const { return !edge.empty() && edge[e]; }
  // The host's GPUs that are up, by local index.
  std::vector<VertexId> gpus_up(const Cluster& cluster, int host) const;
  int gpus_up_count(const Cluster& cluster, int host) const;
  // Nothing of the host is down: every GPU and NIC, and every NIC's cables.
  bool host_whole(const Cluster& cluster, int host) const;
};

// Names: hosts ("h003"), devices ("h010/gpu2", "h011/nic3", "leaf4") and links ("leaf4 <-> spine2"
// or "leaf4 -> spine2", both meaning the cable). Errors name the entry and suggest a close name.
Result<DownSet> down_parse(const Cluster& cluster, const std::vector<std::string>& names);

// Every name down_parse takes, for `topo show --names`: hosts, devices with their kind, and each
// pair of linked devices once ("leaf4<->spine2", however many ports the bundle has), in the
// cluster's order.
struct DownNames {
  std::vector<std::string> hosts;
  std::vector<std::pair<DeviceKind, std::string>> devices;
  std::vector<std::string> links;
};
DownNames down_names(const Cluster& cluster);

}  // namespace topoplan

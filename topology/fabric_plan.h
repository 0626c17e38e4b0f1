// What a ClusterSpec's fabric will be, decided and counted before anything is built: the tiers
// (with pods and a core tier added when two tiers cannot connect the nodes), the switches of every
// pod, and the devices and links of the whole cluster. cluster_build refuses a plan past
// limits.h and then builds exactly this plan (fabric.cc), so the counts cannot drift apart.
#pragma once

#include <cstdint>
#include <string>

#include "topology/fabric.h"

namespace topoplan {

// The switches of one pod in one plane (a whole site when there is no core tier).
struct PodShape {
  // 64-bit so that absurd specs count correctly up to the limits that refuse them.
  int64_t hosts = 0;
  int64_t sus = 0;     // scalable units, the last one possibly partly filled
  int64_t leaves = 0;  // sus x rails
  int64_t spines = 0;  // 0: a single leaf and no core tier, so the leaf is the top
};

struct FabricPlan {
  // Resolved: 0 = two tiers; else the pod size under a core tier.
  int nodes_per_pod = 0;
  bool pods_by_default = false;  // FabricSpec asked for kPodsWhenNeeded and two tiers were too few
  int two_tier_max_nodes = 0;    // what two tiers of switch_radix-port switches connect
  int rails = 1;                 // leaves per scalable unit in each plane
  // Ports per switch; leaves are provisioned for a full scalable unit. Every switch port runs at
  // port_GBps (a NIC port on one plane), so a link between two switches is a bundle of whole ports.
  int64_t leaf_down_ports = 0, leaf_up_ports = 0, spine_down_ports = 0, spine_up_ports = 0;
  double port_GBps = 0;
  // Totals for the limits; saturated at a large value rather than overflowing.
  int64_t gpus = 0, switches = 0, devices = 0, links = 0;
  // One line for `topo show`: the tiers and why ("pods added because ...").
  std::string note;

  bool cores() const { return nodes_per_pod > 0; }
  // The shape of a pod of `hosts` hosts.
  PodShape pod(int64_t hosts, const FabricSpec& f) const;
  // Sizes of a site's pods, in order: full pods, then the remainder.
  int pod_size(int site_hosts) const { return cores() ? nodes_per_pod : site_hosts; }
  // Cores per spine position of one plane, for `pods` pods whose largest has `positions` spines.
  int64_t cores_per_group(int64_t pods, int64_t positions, const FabricSpec& f) const;
  // A pod's uplinks from its spines to the core tier, in whole ports: its leaves' uplinks over
  // pod_oversubscription, rounded up, and at least one from every spine to each core of its group.
  int64_t pod_up_ports(const PodShape& pod, int64_t per_group, const FabricSpec& f) const;
};

// Whole ports cabled round robin: port p goes to target p mod `targets`. Of the ports numbered
// first .. first + count - 1, how many land on target `index`. Bundles built this way differ by
// at most one port, and consecutive switches' ports even out over the targets.
int64_t ports_to(int64_t first, int64_t count, int64_t index, int64_t targets);

// Checks the spec's values (positive sizes, sites summing to nodes, ratios and rates in range),
// decides the tiers and counts everything; an error names the limit and the inputs that crossed it.
Result<FabricPlan> fabric_plan(const ClusterSpec& spec);

}  // namespace topoplan

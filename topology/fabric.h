// Fabric recipes: how hosts are wired into leaves, spines, cores and sites. A ClusterSpec is what a
// preset spec ("dgx-h100:32") or a recipe file means; cluster_build turns it into a Cluster.
#pragma once

#include <string>
#include <vector>

#include "topology/cluster.h"
#include "topology/node_types.h"

namespace topoplan {

enum class FabricKind { rail, tor };

// FabricSpec::nodes_per_pod when a recipe or preset leaves it out: two tiers while they can
// connect every node of a site with switch_radix-port switches, else pods under a core tier
// (fabric_plan.h decides and says why).
inline constexpr int kPodsWhenNeeded = -1;

struct FabricSpec {
  FabricKind kind = FabricKind::rail;
  // rail: one leaf per rail per scalable unit; tor: one leaf per group of this many hosts.
  int nodes_per_su = 32;
  double leaf_oversubscription = 1;  // leaf down capacity / up capacity
  // A core tier above pods of this many hosts; 0 = two tiers (leaf/spine) for the whole site;
  // kPodsWhenNeeded = whichever the node count needs.
  int nodes_per_pod = kPodsWhenNeeded;
  double pod_oversubscription = 1;  // spine down capacity / up capacity (e.g. 7 for 7:1)
  int planes = 1;                   // dual plane: every NIC splits its rate over two leaves
  int switch_radix = 64;            // ports per switch, used to size spine and core counts
  int spines_per_pod = 0;           // 0 = derived from radix and capacity
  int cores = 0;                    // 0 = derived
  FabricRouting routing;            // the preset's, with its reason; a recipe's "routing" replaces it
};

struct SiteSpec {
  std::string name;
  int nodes = 0;
};

struct DciSpec {
  int links = 0;           // parallel links between every pair of sites
  double link_GBps = 50;  // each (400 Gbit/s)
  double length_km = 0;
};

struct ClusterSpec {
  std::string name;
  NodeType node;
  int nodes = 0;  // hosts (trays for gb200-nvl72; racks are nodes / 18)
  FabricSpec fabric;
  std::vector<SiteSpec> sites;  // empty = one site holding all nodes
  DciSpec dci;
};

// The default fabric for a node type: rail-optimized with 32-node scalable units (one rack for
// rack-scale types), leaf/spine, and pods under a core tier when two tiers are too few; the
// routing of the fabric the type ships with, where one is known (DGX SuperPODs), else the default.
FabricSpec fabric_default(const NodeType& type);

// Adds hosts named `names` of one type to `c` (rack-scale types: every hosts_per_domain of them
// share a rack's NVLink domain, racks named r<N> by first_index / hosts_per_domain among `total`),
// each host's first NIC appended to *first_nic; returns the host indices. Switches are the
// caller's.
std::vector<int> hosts_build(Cluster& c, const NodeType& type, const std::vector<std::string>& names, int site,
                             int first_index, int total, std::vector<VertexId>* first_nic);

// Adds hosts `names` of a rack-scale type as one NVLink domain named `domain_name` (a whole rack
// or, where a scheduler sees only some of its trays, part of one), with its NVSwitch
// `domain_name/nvswitch`; otherwise as hosts_build.
Result<std::vector<int>> rack_build(Cluster& c, const NodeType& type, const std::vector<std::string>& names, int site,
                                    const std::string& domain_name, std::vector<VertexId>* first_nic);

// Plans the fabric (fabric_plan.h: values checked, counts within limits.h), then builds exactly
// that plan and finalizes.
Result<Cluster> cluster_build(const ClusterSpec& spec);

}  // namespace topoplan

// Kubernetes: node labels that Kueue's topology-aware scheduling and other schedulers read, and
// the Kueue Topology object that names those labels as levels.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "topology/cluster.h"

namespace topoplan {

// Which label keys, from the host upward:
// - topograph: NVIDIA topograph's own (NVIDIA/topograph, docs/k8s.md): network.topology.nvidia.com/
//   accelerator (the NVLink domain, where domains span hosts), /block (the leaf of the host's first
//   NIC), /spine and /datacenter (the first switch above the one below), as far as the fabric goes;
// - tiers: numbered tiers for clusters labelled by tier rather than by role:
//   fabric.topograph.run/tier-1 (the leaf), tier-2, ... up to the site's top switch, however many
//   tiers the fabric has, and accelerator.topograph.run/domain for the NVLink domain.
enum class K8sLabels { topograph, tiers };

// An object name (an RFC 1123 DNS label): the name in lower case, every character but letters,
// digits and '-' made '-', at most 63 characters; `fallback` when nothing is left.
std::string k8s_object_name(const std::string& name, const std::string& fallback);

// The labels k8s_labels_write sets on each host (by host index): key and value, in the order
// written.
std::vector<std::vector<std::pair<std::string, std::string>>> k8s_host_labels(const Cluster& cluster, K8sLabels scheme);

// The label keys of those levels, nearest the host first (the NVLink domain where domains span
// hosts, then the leaf, spine, ...): Kueue's Topology lists them the other way round, and Volcano's
// HyperNode discovery numbers them as tiers from 1 in this order.
std::vector<std::string> k8s_level_keys(const Cluster& cluster, K8sLabels scheme);

// `kubectl label node` lines, one per host.
std::string k8s_labels_write(const Cluster& cluster, K8sLabels scheme);

// A kueue.x-k8s.io/v1alpha1 Topology with the levels k8s_labels_write sets, top down, and
// kubernetes.io/hostname last.
std::string kueue_topology_write(const Cluster& cluster, K8sLabels scheme);

}  // namespace topoplan

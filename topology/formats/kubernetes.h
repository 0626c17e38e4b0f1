// Kubernetes: node labels in NVIDIA topograph's scheme, which Kueue's topology-aware scheduling
// and other schedulers read, and the Kueue Topology object that names those labels as levels.
#pragma once

#include <string>

#include "topology/cluster.h"

namespace topoplan {

// `kubectl label node` lines, one per host: network.topology.nvidia.com/accelerator (the NVLink
// domain, where domains span hosts), /block (the leaf of the host's first NIC), /spine and
// /datacenter (the first switch above the one below: pod spine, core), as far as the fabric goes.
std::string k8s_labels_write(const Cluster& cluster);

// A kueue.x-k8s.io/v1alpha1 Topology with the levels k8s_labels_write sets, top down, and
// kubernetes.io/hostname last.
std::string kueue_topology_write(const Cluster& cluster);

}  // namespace topoplan

// Graphviz export for looking at a cluster: `topoplan ... | dot -Tsvg > cluster.svg`.
#pragma once

#include <string>

#include "topology/cluster.h"

namespace topoplan {

// One box (`subgraph cluster_*`) per site and per host, each switch tier of a site on one rank,
// one undirected edge per physical link labelled with its capacity per direction and styled by kind.
std::string save_cluster_dot(const Cluster& cluster);

}  // namespace topoplan

// Graphviz export for looking at a cluster: `topoplan ... | dot -Tsvg > cluster.svg`.
#pragma once

#include <string>
#include <vector>

#include "topology/cluster.h"

namespace topoplan {

// One box (`subgraph cluster_*`) per site and per host, each switch tier of a site on one rank,
// one undirected edge per physical link labelled with its capacity per direction and styled by kind.
std::string save_cluster_dot(const Cluster& cluster);

// Link utilization to draw instead of capacities: per directed edge id, a share of time busy
// (0 = idle). Only loaded links and their endpoints are drawn, coloured and sized by the busier
// direction, so the hot spots of a job stand out.
struct DotLoad {
  std::vector<double> utilization;  // indexed by EdgeId, size num_edges()
  std::string title;
};
std::string save_cluster_dot(const Cluster& cluster, const DotLoad& load);

}  // namespace topoplan

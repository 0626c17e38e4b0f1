// Slurm's topology.yaml (Slurm 25.05 and later): a list of named topologies, each a tree (switches
// with their nodes or child switches), a set of blocks with block sizes, or flat. Read into the
// same SlurmTopology as topology.conf, so one builder makes the cluster; written with the tree as
// the cluster default and the blocks beside it.
#pragma once

#include <string>
#include <vector>

#include "topology/cluster.h"
#include "topology/formats/slurm_topology.h"

namespace topoplan {

struct SlurmYaml {
  SlurmTopology topology;
  std::string name;                // the topology chosen
  std::vector<std::string> names;  // every topology in the file, in order
};

// `name` picks a topology; "" takes the first with cluster_default: true, else the only one.
// Errors name `where` and the line: "topology.yaml:6: switch s1: children names s1 itself".
Result<SlurmYaml> slurm_yaml_parse(const std::string& text, const std::string& where, const std::string& name);

// topology.yaml with two topologies: "tree" (cluster_default) and "block".
std::string slurm_yaml_write(const Cluster& cluster);

}  // namespace topoplan

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

// Whether the file's first line (import_format.h) starts a YAML document or list.
bool slurm_yaml_sniff(std::string_view line, std::string_view text);

// Slurm's topology.conf or topology.yaml, told by content (a file that says nothing and is named
// .yaml or .yml is read as YAML, for YAML's errors), with hosts of `options.type`;
// `options.topology` picks one of topology.yaml's topologies ("" its cluster default). The cluster
// is named after `where`.
Result<ClusterImport> slurm_topology_import(const std::string& text, const std::string& where,
                                            const ClusterImportOptions& options);

// topology.yaml with two topologies: "tree" (cluster_default) and "block".
std::string slurm_yaml_write(const Cluster& cluster);

}  // namespace topoplan

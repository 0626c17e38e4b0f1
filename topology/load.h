// CLUSTER arguments: a preset spec ("dgx-h100:32", "gb200-nvl72:2"), a file (recipe or graph), N
// servers described by another tool's file ("node.xml:32"), or Slurm's fabric of such servers
// ("topology.conf@dgx-h100").
#pragma once

#include <string>

#include "topology/cluster.h"
#include "topology/fabric.h"
#include "topology/formats/slurm_topology.h"

namespace topoplan {

// "dgx-h100:32" -> 32 DGX H100 on the default fabric; "gb200-nvl72:2" -> 2 racks (36 trays).
// N is required; N past limits::kMaxGpus is refused before anything is built. Unknown names get a
// "did you mean".
Result<ClusterSpec> preset_spec_parse(const std::string& text);

// An existing file is told by its content: a recipe or explicit graph loads; a server's file
// (nvidia-smi topo -m, NCCL or hwloc XML, a node type) or Slurm's topology asks for FILE:N or
// FILE@NODE. Then "FILE:N" (N such servers on the default fabric), "topology.conf@NODE" or
// "topology.yaml@NODE" (Slurm's fabric, its cluster_default topology, hosts of NODE), a path that
// does not exist (an error), else a preset spec.
Result<Cluster> cluster_load(const std::string& spec);

// The one node type such an argument is made of: a preset's name (with or without :N), a node
// type file, a recipe, or a server's nvidia-smi topo -m, NCCL or hwloc XML file when it says enough
// alone (`topoplan import` takes options for what it does not); an explicit graph keeps none.
Result<NodeType> node_type_load(const std::string& spec);

// Slurm's topology.conf or topology.yaml (told by content) with hosts of `type`; `topology` picks
// one of topology.yaml's topologies ("" its cluster default). The cluster is named after the file.
Result<SlurmImport> slurm_import(const std::string& path, const std::string& topology, const NodeType& type, double oversubscription);

}  // namespace topoplan

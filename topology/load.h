// CLUSTER arguments: a preset spec ("dgx-h100:32", "gb200-nvl72:2") or a file (recipe or graph).
#pragma once

#include <string>

#include "topology/cluster.h"
#include "topology/fabric.h"

namespace topoplan {

// "dgx-h100:32" -> 32 DGX H100 on the default fabric; "gb200-nvl72:2" -> 2 racks (36 trays).
// N is required; N past limits::kMaxGpus is refused before anything is built. Unknown names get a
// "did you mean".
Result<ClusterSpec> preset_spec_parse(const std::string& text);

// A path to an existing file (or anything ending in .json) is loaded as a file, else a preset spec.
Result<Cluster> cluster_load(const std::string& spec);

// The one node type such an argument is made of: a preset's name (with or without :N), a node
// type file, or a recipe; an explicit graph keeps none, which is an error.
Result<NodeType> node_type_load(const std::string& spec);

}  // namespace topoplan

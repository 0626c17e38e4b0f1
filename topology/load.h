// CLUSTER arguments: a preset spec ("dgx-h100:32", "gb200-nvl72:2"), a file (recipe or graph), N
// servers described by another tool's file ("node.xml:32"), or a fabric's file with such servers
// ("topology.conf@dgx-h100"); the other tools' formats are the import family (import_format.h).
#pragma once

#include <string>

#include "topology/cluster.h"
#include "topology/fabric.h"
#include "topology/formats/import_format.h"

namespace topoplan {

// "dgx-h100:32" -> 32 DGX H100 on the default fabric; "gb200-nvl72:2" -> 2 racks (36 trays).
// N is required; N past limits::kMaxGpus is refused before anything is built. Unknown names get a
// "did you mean".
Result<ClusterSpec> preset_spec_parse(const std::string& text);

// An existing file is told by its content: a recipe or explicit graph loads; a server's file (an
// import format's or a node type) or a fabric's asks for FILE:N or FILE@NODE. Then "FILE:N" (N
// such servers on the default fabric), "FILE@NODE" (a fabric's file, e.g. Slurm's topology.conf
// with its cluster_default topology, hosts of NODE), a path that does not exist (an error), else a
// preset spec.
Result<Cluster> cluster_load(const std::string& spec);

// The one node type such an argument is made of: a preset's name (with or without :N), a node
// type file, a recipe, or a server's file in an import format when it says enough alone (`topoplan import` takes options for what it does not); an explicit graph keeps none.
Result<NodeType> node_type_load(const std::string& spec);

// A fabric's file (an import format that takes a node type: Slurm's topology.conf) with hosts of
// `options.type`, in `format` or, where that is nullptr, the format its content shows. The cluster
// is named after the file.
Result<ClusterImport> cluster_import(const std::string& path, const ImportFormat* format,
                                     const ClusterImportOptions& options);

}  // namespace topoplan

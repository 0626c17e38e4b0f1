// What the node-file fuzz targets check once a file parsed: the facts become a node type or an
// error that says why, a type that comes out builds a cluster (import's own stage, node_import),
// and a host's GPUs make an NCCL communicator (a mesh's ring search ends within its bounds).
#pragma once

#include "cost/comm_group.h"
#include "fuzz/fuzz.h"
#include "topology/formats/node_import.h"
#include "topology/node_types.h"

namespace topoplan::fuzz {

inline void expect_node_type_builds(const NodeFacts& facts) {
  static const NodeType base = *node_type_named("dgx-h100");
  NodeHints hints;
  hints.base = &base;
  Result<NodeImport> imported = node_import(facts, hints, 0, "fuzz");
  if (!ok_or_explained(imported)) {
    // Inference may refuse the facts; a type it gives must build.
    if (node_type_infer(facts, hints)) violated("an imported node type does not build:", imported.error());
    return;
  }
  // Without NICs a type is no cluster, and the stage builds none.
  if (!imported->cluster) return;
  const Cluster& c = *imported->cluster;
  // Servers have at most 16 GPUs; past that the local path search, not the mesh, takes the time.
  if (imported->inferred.type.gpus > 16) return;
  Router router(c);
  Result<CommGroup> g = comm_group_make(c, router, c.hosts()[0].gpus);
  if (!ok_or_explained(g)) return;
  comm_group_nccl(nccl_tuning_default(), c, *g);
}

}  // namespace topoplan::fuzz

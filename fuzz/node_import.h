// What the node-file fuzz targets check once a file parsed: the facts become a node type or an
// error that says why, a type that comes out builds a cluster, and a host's GPUs make an NCCL
// communicator (a mesh's ring search ends within its bounds).
#pragma once

#include "cost/comm_group.h"
#include "fuzz/fuzz.h"
#include "topology/fabric.h"
#include "topology/formats/node_facts.h"
#include "topology/node_types.h"

namespace topoplan::fuzz {

inline void expect_node_type_builds(const NodeFacts& facts) {
  static const NodeType base = *node_type_named("dgx-h100");
  NodeHints hints;
  hints.base = &base;
  Result<NodeTypeInference> inferred = node_type_infer(facts, hints);
  if (!ok_or_explained(inferred)) return;
  ClusterSpec spec;
  spec.name = "fuzz";
  spec.node = inferred->type;
  spec.nodes = 2;
  spec.fabric = fabric_default(spec.node);
  // Without NICs a type is no cluster, and says so; with them it builds.
  Result<Cluster> c = cluster_build(spec);
  if (inferred->type.nics == 0 && !ok_or_explained(c)) return;
  if (!c) violated("an imported node type with NICs does not build:", c.error());
  // Servers have at most 16 GPUs; past that the local path search, not the mesh, takes the time.
  if (inferred->type.gpus > 16) return;
  Router router(*c);
  Result<CommGroup> g = comm_group_make(*c, router, c->hosts()[0].gpus);
  if (!ok_or_explained(g)) return;
  comm_group_nccl(nccl_tuning_default(), *c, *g);
}

}  // namespace topoplan::fuzz

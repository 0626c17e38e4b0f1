// What both node-file fuzz targets check once a file parsed: the facts become a node type or an
// error that says why, and a type that comes out builds a cluster.
#pragma once

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
}

}  // namespace topoplan::fuzz

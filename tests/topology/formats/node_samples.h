// Shared by the node-file importers' tests: a sample from ../shared/reference/samples parsed, and
// the node type it gives with a preset filling what the file does not say.
#pragma once

#include <doctest/doctest.h>

#include "tests/support.h"
#include "topology/formats/node_facts.h"

namespace topoplan::test {

template <typename Parse>
NodeFacts node_sample(Parse parse, const std::string& name) {
  Result<NodeFacts> f = parse(read_file(sample_path(name)), name);
  REQUIRE_MESSAGE(f.ok(), (f ? "" : f.error()));
  return *f;
}

inline Result<NodeTypeInference> infer_with_base(const NodeFacts& f, const std::string& base) {
  const NodeType preset = *node_type_named(base);
  NodeHints hints;
  hints.base = &preset;
  return node_type_infer(f, hints);
}

inline NodeType inferred(const NodeFacts& f, const std::string& base) {
  Result<NodeTypeInference> t = infer_with_base(f, base);
  REQUIRE_MESSAGE(t.ok(), (t ? "" : t.error()));
  return t->type;
}

}  // namespace topoplan::test

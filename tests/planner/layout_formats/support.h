// What the layout-format tests share: a two-DGX cluster and the names of the GPUs a text places.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "planner/layout.h"
#include "tests/support.h"

namespace topoplan::test {

// The GPU names layout_parse gives `text` on two DGX H100 (world 0: as many ranks as it places).
inline std::vector<std::string> placed(const std::string& text, int world = 0) {
  static const Cluster c = load_cluster("dgx-h100:2");
  Result<Layout> l = layout_parse(text, "f", c, world);
  REQUIRE_MESSAGE(l.ok(), (l ? "" : l.error()));
  std::vector<std::string> names;
  for (VertexId v : l->gpu_of_rank) names.push_back(c.device(v).name);
  return names;
}

inline std::string layout_error(const std::string& text, int world = 0) {
  static const Cluster c = load_cluster("dgx-h100:2");
  Result<Layout> l = layout_parse(text, "f", c, world);
  REQUIRE_FALSE(l.ok());
  return l.error();
}

}  // namespace topoplan::test

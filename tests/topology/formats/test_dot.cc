#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>

#include "tests/support.h"
#include "topology/formats/dot.h"
#include "topology/load.h"

using namespace topoplan;

namespace {

// Two sites of two DGX H100 each, joined by two 400 Gbps DCI links of 50 km.
Cluster two_sites() {
  Result<ClusterSpec> spec = preset_spec_parse("dgx-h100:4");
  REQUIRE(spec.ok());
  spec->sites = {{"siteA", 2}, {"siteB", 2}};
  spec->dci = {2, 400, 50};
  Result<Cluster> c = cluster_build(*spec);
  REQUIRE_MESSAGE(c.ok(), (c ? "" : c.error()));
  return std::move(*c);
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

}  // namespace

TEST_CASE("dot: a box per site and host, a rank per tier, one labelled edge per link") {
  Cluster c = two_sites();
  std::string dot = save_cluster_dot(c);
  CHECK(dot.rfind("graph \"dgx-h100:4\" {", 0) == 0);
  CHECK(count(dot, "subgraph cluster_site_") == 2);
  CHECK(count(dot, "subgraph cluster_host_") == 4);
  CHECK(dot.find("label=\"siteB\"") != std::string::npos);
  CHECK(dot.find("label=\"h003\"") != std::string::npos);
  CHECK(dot.find("\"h001/gpu3\" [label=\"gpu3\"") != std::string::npos);
  // Per site: leaves, spines, then the site routers above them.
  CHECK(count(dot, "{ rank=same;") == 2 * 3);
  CHECK(count(dot, " -- ") == c.num_edges() / 2);
  CHECK(dot.find("[label=\"50 GB/s\", color=blue]") != std::string::npos);        // NIC to leaf
  CHECK(dot.find("[label=\"450 GB/s\", color=green4") != std::string::npos);     // NVLink
  CHECK(dot.find("[label=\"50 GB/s\\n50 km\", color=red") != std::string::npos);  // DCI
  CHECK(save_cluster_dot(c) == dot);
}

TEST_CASE("dot: graphviz renders the export") {
  if (std::system("command -v dot >/dev/null 2>&1") != 0) {
    MESSAGE("skipping: graphviz 'dot' is not installed");
    return;
  }
  auto dir = test::temp_dir("dot");
  std::ofstream(dir / "c.dot") << save_cluster_dot(two_sites());
  std::string cmd = "dot -Tsvg '" + (dir / "c.dot").string() + "' -o '" + (dir / "c.svg").string() + "' 2>'" +
                    (dir / "err").string() + "'";
  CHECK(std::system(cmd.c_str()) == 0);
  CHECK_MESSAGE(test::read_file(dir / "err").empty(), test::read_file(dir / "err"));
  CHECK(test::read_file(dir / "c.svg").find("<svg") != std::string::npos);
}

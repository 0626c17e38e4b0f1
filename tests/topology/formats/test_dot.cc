#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <set>

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
  spec->dci = {2, 50, 50};
  Result<Cluster> c = cluster_build(*spec);
  REQUIRE_MESSAGE(c.ok(), (c ? "" : c.error()));
  return std::move(*c);
}

struct Size {
  double width_pt = 0, height_pt = 0;
};

// The SVG's size as graphviz lays the drawing out; fails the test on any graphviz message.
Size rendered(const std::string& dot) {
  auto dir = test::temp_dir("dot");
  std::ofstream(dir / "c.dot") << dot;
  std::string cmd = "dot -Tsvg '" + (dir / "c.dot").string() + "' -o '" + (dir / "c.svg").string() + "' 2>'" +
                    (dir / "err").string() + "'";
  CHECK(std::system(cmd.c_str()) == 0);
  CHECK_MESSAGE(test::read_file(dir / "err").empty(), test::read_file(dir / "err"));
  const std::string svg = test::read_file(dir / "c.svg");
  std::smatch m;
  Size size;
  if (std::regex_search(svg, m, std::regex(R"(<svg width="([0-9.]+)pt" height="([0-9.]+)pt")")))
    size = {std::stod(m[1]), std::stod(m[2])};
  std::filesystem::remove_all(dir);
  return size;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

}  // namespace

TEST_CASE("dot: expanded, a box per site and host, a rank per tier, one labelled edge per link") {
  Cluster c = two_sites();
  std::string dot = save_cluster_dot(c, DotHosts::expand);
  CHECK(dot.rfind("graph \"dgx-h100:4\" {\n  rankdir=TB;", 0) == 0);
  CHECK(count(dot, "subgraph cluster_site_") == 2);
  CHECK(count(dot, "subgraph cluster_host_") == 4);
  CHECK(dot.find("label=\"siteB\"") != std::string::npos);
  CHECK(dot.find("label=\"h003\"") != std::string::npos);
  CHECK(dot.find("\"h001/gpu3\" [label=\"gpu3\"") != std::string::npos);
  // Per site: leaves, spines, then the site routers above them.
  CHECK(count(dot, "{ rank=same;") == 2 * 3);
  // A bundle of parallel ports (8 from each leaf to each spine) is one edge, "8 x 50 GB/s".
  std::set<std::pair<VertexId, VertexId>> pairs;
  for (EdgeId e = 0; e < c.num_edges(); e += 2) pairs.insert(std::minmax(c.source(e), c.target(e)));
  CHECK(count(dot, " -- ") == pairs.size());
  CHECK(dot.find("  \"siteA/spine0\" -- \"siteA/leaf0\" [label=\"8 x 50 GB/s\", color=blue];") != std::string::npos);
  CHECK(dot.find("[label=\"50 GB/s\", color=blue]") != std::string::npos);        // NIC to leaf
  CHECK(dot.find("[label=\"450 GB/s\", color=green4") != std::string::npos);      // NVLink
  CHECK(dot.find("[label=\"50 GB/s\\n50 km\", color=red") != std::string::npos);  // DCI
  CHECK(save_cluster_dot(c, DotHosts::expand) == dot);
}

TEST_CASE("dot: collapsed, a node per host, interchangeable switches folded, parallel links one edge") {
  Cluster c = two_sites();
  std::string dot = save_cluster_dot(c);
  CHECK(count(dot, "subgraph cluster_site_") == 2);
  CHECK(count(dot, "subgraph cluster_host_") == 0);
  CHECK(dot.find("\"h003\" [label=\"h003\\n8 x H100-SXM5\", shape=box") != std::string::npos);
  // Per site: hosts, the rail leaves as one, the spines as one, the site routers as one.
  CHECK(count(dot, "{ rank=same;") == 2 * 4);
  CHECK(dot.find("\"siteA/leaf[0-7]\" [label=\"siteA/leaf[0-7]\\n8 switches\", shape=box3d, peripheries=2]") !=
        std::string::npos);
  // Upper end first, so dot ranks the fabric above the hosts.
  CHECK(dot.find("  \"siteA/leaf[0-7]\" -- \"h001\" [label=\"8 x 50 GB/s\", color=blue];") != std::string::npos);
  CHECK(dot.find("  \"siteA/spine[0-3]\" -- \"siteA/leaf[0-7]\" [label=\"256 x 50 GB/s\"") != std::string::npos);
  // The DCI links between the sites: one edge that leaves the sites side by side.
  CHECK(
      dot.find(
          "\"siteA/dci[0-1]\" -- \"siteB/dci[0-1]\" [label=\"2 x 50 GB/s\\n50 km\", color=red, penwidth=3, style=bold, "
          "constraint=false]") != std::string::npos);
  CHECK(count(dot, " -- ") == 9);
  CHECK(dot_hosts_from("expand") == DotHosts::expand);
  CHECK_FALSE(dot_hosts_from("expanded"));
  CHECK(to_string(DotHosts::collapse) == "collapse");
}

TEST_CASE("dot: a load labels each edge with its busiest link per direction; explain's part in blue") {
  Cluster c = two_sites();
  DotLoad load;
  load.utilization.assign(c.num_edges(), 0);
  load.title = "test load";
  // h002's NICs up at 60% and down at 10%, and one NVLink inside h001 at 30%.
  std::optional<int> h002 = c.host_index("h002");
  REQUIRE(h002);
  EdgeId nic_up = 0;
  for (VertexId nic : c.hosts()[static_cast<size_t>(*h002)].nics)
    for (EdgeId e : c.out_edges(nic)) {
      if (!is_fabric(c.device(c.target(e)).kind)) continue;
      load.utilization[e] = 0.6;
      load.utilization[Cluster::reverse(e)] = 0.1;
      nic_up = e;
    }
  for (EdgeId e : c.out_edges(c.hosts()[0].gpus[0]))
    if (c.link(e).kind == LinkKind::NVL) load.utilization[e] = 0.3;
  std::string dot = save_cluster_dot(c, load);
  CHECK(dot.find("label=\"test load\";") != std::string::npos);
  CHECK(dot.find("\"h001\" [label=\"h001\\n8 x H100-SXM5\\ninside 30%\"") != std::string::npos);
  CHECK(
      dot.find("\"siteA/leaf[0-7]\" -- \"h002\" [label=\"8 x 50 GB/s\\n10% / 60%\", color=darkorange, penwidth=4];") !=
      std::string::npos);
  CHECK(count(dot, " -- ") == 1);  // only loaded links
  CHECK(dot.find("blue") == std::string::npos);

  load.highlight_edges = {nic_up};
  load.highlight_hosts = {*h002};
  dot = save_cluster_dot(c, load);
  CHECK(dot.find("\"siteA/leaf[0-7]\" -- \"h002\" [label=\"8 x 50 GB/s\\n10% / 60%\", color=blue, fontcolor=blue, "
                 "style=bold, penwidth=6];") != std::string::npos);
  CHECK(dot.find("\"h002\" [label=\"h002\\n8 x H100-SXM5\", shape=box, style=filled, fillcolor=palegreen, color=blue, "
                 "penwidth=3];") != std::string::npos);
  CHECK(dot.find(
            "\"h001\" [label=\"h001\\n8 x H100-SXM5\\ninside 30%\", shape=box, style=filled, fillcolor=palegreen];") !=
        std::string::npos);
  // Expanded, the host's box is outlined.
  dot = save_cluster_dot(c, load, DotHosts::expand);
  CHECK(dot.find("label=\"h002\";\n      graph [color=blue, penwidth=3];") != std::string::npos);
}

TEST_CASE("dot: graphviz renders the drawings, narrow at 2, 16, 128 and 2048 hosts") {
  if (std::system("command -v dot >/dev/null 2>&1") != 0) {
    MESSAGE("skipping: graphviz 'dot' is not installed");
    return;
  }
  {
    Cluster c = two_sites();
    for (DotHosts hosts : {DotHosts::collapse, DotHosts::expand})
      CHECK(rendered(save_cluster_dot(c, hosts)).width_pt > 0);
  }
  const std::string threetier = (test::data_dir() / "clusters" / "threetier-h100.json").string();
  for (const std::string& spec :
       {std::string("dgx-h100:2"), std::string("dgx-h100:16"), std::string("dgx-h100:128"), threetier}) {
    CAPTURE(spec);
    Cluster c = test::load_cluster(spec);
    // Every link loaded, at every colour: the most a job's drawing can hold.
    DotLoad load;
    for (EdgeId e = 0; e < c.num_edges(); ++e) load.utilization.push_back(0.01 + 0.01 * (e % 100));
    for (const std::string& dot : {save_cluster_dot(c), save_cluster_dot(c, load)}) {
      const Size size = rendered(dot);
      CHECK(size.width_pt > 0);
      CHECK(size.width_pt < 3000);
      CHECK(size.height_pt < 1000);
    }
  }
}

#include <doctest/doctest.h>

#include "topology/cluster.h"

#include <boost/graph/breadth_first_search.hpp>
#include <boost/range/iterator_range.hpp>

#include "tests/support.h"

using namespace topoplan;

namespace {

Device gpu(const std::string& name, int host, int index) {
  Device d;
  d.name = name;
  d.kind = DeviceKind::gpu;
  d.host = host;
  d.local_index = static_cast<int16_t>(index);
  return d;
}

}  // namespace

TEST_CASE("cluster: links are two directed edges, GPUs ordered host-major") {
  Cluster c;
  int h0 = c.add_host({"a", -1, -1, "", {}, {}});
  int h1 = c.add_host({"b", -1, -1, "", {}, {}});
  VertexId b1 = *c.add_device(gpu("b/gpu1", h1, 1));
  VertexId a0 = *c.add_device(gpu("a/gpu0", h0, 0));
  VertexId b0 = *c.add_device(gpu("b/gpu0", h1, 0));
  EdgeId e = *c.add_link(a0, b0, LinkKind::NVL, 100, 0.5);
  REQUIRE(c.add_link(b0, b1, LinkKind::NVL, 100, 0.5));
  REQUIRE(c.finalize());
  CHECK(c.num_edges() == 4);
  CHECK(c.source(e) == a0);
  CHECK(c.target(Cluster::reverse(e)) == a0);
  CHECK(c.link(Cluster::reverse(e)).bw_GBps == 100);
  CHECK(c.out_edges(b0).size() == 2);
  REQUIRE(c.gpus().size() == 3);
  CHECK(c.gpus()[0] == a0);
  CHECK(c.gpus()[1] == b0);
  CHECK(c.gpus()[2] == b1);
  CHECK(c.gpus_per_host() == 0);  // 1 and 2 GPUs: not uniform
  CHECK(*c.find("b/gpu1") == b1);
  CHECK_FALSE(c.find("b/gpu7"));
}

TEST_CASE("cluster: bad graphs are refused with the device named") {
  Cluster c;
  int h = c.add_host({"a", -1, -1, "", {}, {}});
  VertexId g0 = *c.add_device(gpu("a/gpu0", h, 0));
  VertexId g1 = *c.add_device(gpu("a/gpu1", h, 1));
  CHECK(c.add_device(gpu("a/gpu0", h, 2)).error() == "duplicate device name 'a/gpu0'");
  CHECK(c.add_link(g0, g1, LinkKind::NVL, 0, 1).error().find("bw_GBps must be > 0") != std::string::npos);
  CHECK(c.add_link(g0, g1, LinkKind::NVL, -5, 1).error().find("bw_GBps must be > 0") != std::string::npos);
  CHECK_FALSE(c.add_link(g0, g0, LinkKind::NVL, 5, 1));
  CHECK_FALSE(c.add_link(g0, 99, LinkKind::NVL, 5, 1));
  Result<void> r = c.finalize();
  REQUIRE_FALSE(r);
  CHECK(r.error() == "GPU 'a/gpu1' has no path to 'a/gpu0'");
}

TEST_CASE("cluster: hosts_of lists hosts in order of first appearance, few devices or many") {
  const Cluster c = test::load_cluster("dgx-h100:16");
  // Many: every GPU, hosts from last to first, each host's GPUs interleaved with another's.
  std::vector<VertexId> many;
  for (int h = 15; h >= 0; h -= 2)
    for (int k = 0; k < 8; ++k) {
      many.push_back(c.hosts()[static_cast<size_t>(h)].gpus[static_cast<size_t>(k)]);
      many.push_back(c.hosts()[static_cast<size_t>(h - 1)].gpus[static_cast<size_t>(k)]);
    }
  REQUIRE(many.size() > 64);
  std::vector<int> want;
  for (int h = 15; h >= 0; --h) want.push_back(h);
  CHECK(c.hosts_of(many) == want);
  // Few: a NIC of host 3 and GPUs of hosts 5 and 3; a switch is in no host (-1), listed once.
  VertexId leaf = 0;
  while (c.device(leaf).host >= 0) ++leaf;
  const std::vector<VertexId> few = {c.hosts()[3].nics[0], c.hosts()[5].gpus[0], leaf, c.hosts()[3].gpus[1], leaf};
  CHECK(c.hosts_of(few) == std::vector<int>{3, 5, -1});
  // A device in no host among many is listed once too.
  many.push_back(leaf);
  many.push_back(leaf);
  want.push_back(-1);
  CHECK(c.hosts_of(many) == want);
}

TEST_CASE("cluster: the Boost graph holds every link, each vertex's out-edges in the order they were added") {
  // Each vertex's Boost out-edges are out_edges(v): the same ids, targets and order; Boost's
  // breadth-first search over graph() reaches every device of a connected preset.
  const Cluster c = test::load_cluster("dgx-h100:4");
  const Cluster::Graph& g = c.graph();
  REQUIRE(boost::num_vertices(g) == c.num_devices());
  REQUIRE(boost::num_edges(g) == c.num_edges());
  for (VertexId v = 0; v < c.num_devices(); ++v) {
    CAPTURE(c.device(v).name);
    const std::span<const EdgeId> ours = c.out_edges(v);
    REQUIRE(boost::out_degree(v, g) == ours.size());
    size_t i = 0;
    EdgeId last = 0;
    for (auto e : boost::make_iterator_range(boost::out_edges(v, g))) {
      CHECK(g[e] == ours[i]);
      CHECK(boost::target(e, g) == c.target(ours[i]));
      CHECK(c.source(ours[i]) == v);
      if (i > 0) CHECK(ours[i] > last);
      last = ours[i++];
    }
  }
  std::vector<int> hops(c.num_devices(), -1);
  hops[0] = 0;
  boost::breadth_first_search(
      g, VertexId{0},
      boost::visitor(boost::make_bfs_visitor(boost::record_distances(hops.data(), boost::on_tree_edge()))));
  CHECK(std::count(hops.begin(), hops.end(), -1) == 0);
}

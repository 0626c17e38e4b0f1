#include <doctest/doctest.h>

#include "topology/cluster.h"

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

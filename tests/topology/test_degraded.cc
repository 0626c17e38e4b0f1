#include "topology/degraded.h"

#include <doctest/doctest.h>

#include "tests/support.h"

namespace topoplan {

TEST_CASE("degraded: a NIC or a cable at a lower rate, every other link as built") {
  const Cluster c = test::load_cluster("dgx-h100:4");
  const Result<Degraded> d = cluster_degraded(c, {"h002/nic3=200Gbps", "leaf0<->spine0 = 25GB/s"});
  REQUIRE_MESSAGE(d.ok(), (d ? "" : d.error()));
  CHECK(d->hosts == std::vector<int>{1});
  CHECK(d->names.size() == 2);
  REQUIRE(d->cluster.num_edges() == c.num_edges());
  const VertexId nic = *c.find("h002/nic3"), leaf = *c.find("leaf0"), spine = *c.find("spine0");
  int slower = 0;
  for (EdgeId e = 0; e < c.num_edges(); ++e) {
    // The same devices and links in the same order: a layout's GPU ids still hold.
    CHECK(d->cluster.device(d->cluster.source(e)).name == c.device(c.source(e)).name);
    const bool nic_cable = (c.source(e) == nic || c.target(e) == nic) && c.link(e).kind == LinkKind::NET;
    const bool uplink = (c.source(e) == leaf && c.target(e) == spine) || (c.source(e) == spine && c.target(e) == leaf);
    if (nic_cable) CHECK(d->cluster.link(e).bw_GBps == doctest::Approx(25));
    if (uplink) CHECK(d->cluster.link(e).bw_GBps == doctest::Approx(25));
    if (!nic_cable && !uplink) CHECK(d->cluster.link(e).bw_GBps == c.link(e).bw_GBps);
    slower += nic_cable || uplink;
  }
  CHECK(slower >= 4);  // both directions of each
}

TEST_CASE("degraded: malformed entries name what is wrong") {
  const Cluster c = test::load_cluster("dgx-h100:2");
  CHECK(cluster_degraded(c, {"h001/nic0"}).error() ==
        "--degraded: 'h001/nic0': expected NAME=RATE (h001/nic0=200Gbps, leaf0<->spine3=25GB/s)");
  CHECK(cluster_degraded(c, {"h001/nic0=fast"}).error().starts_with("--degraded: h001/nic0: "));
  CHECK(cluster_degraded(c, {"h001/nic0=800Gbps"}).error() ==
        "--degraded: h001/nic0: 800 Gbps is not below the port's 400 Gbps");
  CHECK(cluster_degraded(c, {"h001/gpu0=100Gbps"}).error() ==
        "--degraded: 'h001/gpu0': expected a NIC or a cable as A<->B (topo show --names lists them)");
  CHECK(cluster_degraded(c, {"leaf0<->h009/nic0=100Gbps"}).error() == "--degraded: no device 'h009/nic0'");
  CHECK(cluster_degraded(c, {"h001/nic0<->h002/nic0=100Gbps"}).error() ==
        "--degraded: 'h001/nic0' and 'h002/nic0' are not linked");
}

}  // namespace topoplan

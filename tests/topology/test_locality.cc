#include "topology/locality.h"

#include <doctest/doctest.h>

#include "tests/support.h"
#include "topology/fabric.h"

using namespace topoplan;

namespace {

// 512 DGX H100 in pods of 128 hosts (4 scalable units of 32), 7:1 above the pods.
Cluster three_tier(int nodes = 512) {
  ClusterSpec spec;
  spec.name = "pods";
  spec.node = *node_type_named("dgx-h100");
  spec.nodes = nodes;
  spec.fabric.nodes_per_pod = 128;
  spec.fabric.pod_oversubscription = 7;
  Result<Cluster> c = cluster_build(spec);
  REQUIRE_MESSAGE(c.ok(), (c ? "" : c.error()));
  return std::move(*c);
}

}  // namespace

TEST_CASE("locality: scalable units are leaf groups, pods are leaf groups under the same spines") {
  Cluster c = three_tier();
  Locality l = locality_of(c);
  CHECK(l.leaf_groups == 16);
  CHECK(l.pods == 4);
  CHECK(l.sites == 1);
  CHECK(l.domains == 512);
  CHECK(l.level(0, 0) == Level::host);
  CHECK(l.level(0, 31) == Level::leaf_group);  // one scalable unit: the same 8 rail leaves
  CHECK(l.level(0, 32) == Level::pod);         // the next unit, same spines
  CHECK(l.level(0, 127) == Level::pod);
  CHECK(l.level(0, 128) == Level::site);  // another pod: through the cores
  CHECK(l.leaf_group[33] == 1);
  CHECK(l.pod[300] == 2);
  CHECK(l.unit(300, Level::pod) == 2);
  CHECK(l.unit(300, Level::host) == 300);
  CHECK(to_string(Level::leaf_group) == "leaf group");
}

TEST_CASE("locality: NVL72 trays share a domain, sites are sites") {
  Cluster nvl = test::load_cluster("gb200-nvl72:2");
  Locality l = locality_of(nvl);
  CHECK(l.domains == 2);
  CHECK(l.level(0, 17) == Level::domain);
  CHECK(l.level(0, 18) == Level::leaf_group);  // 8 racks share a scalable unit's rail leaves
  CHECK(l.leaf_groups == 1);
}

TEST_CASE("locality: link levels and tiers") {
  Cluster c = three_tier(256);
  auto edge = [&](const std::string& a, const std::string& b) {
    for (EdgeId e : c.out_edges(*c.find(a)))
      if (c.device(c.target(e)).name == b) return e;
    FAIL("no link " << a << " -> " << b);
    return EdgeId{0};
  };
  CHECK(link_level(c, edge("h001/gpu0", "h001/nvswitch")) == 0);
  CHECK(link_tier(c, edge("h001/gpu0", "h001/nvswitch")) == "host");
  CHECK(link_level(c, edge("h001/nic0", "leaf0")) == 1);
  CHECK(link_tier(c, edge("leaf0", "h001/nic0")) == "leaf");
  CHECK(link_level(c, edge("leaf0", "spine0")) == 2);
  CHECK(link_tier(c, edge("spine0", "leaf0")) == "spine");
  const EdgeId up = c.out_edges(*c.find("spine0")).back();
  CHECK(c.device(c.target(up)).tier == 3);
  CHECK(link_level(c, up) == 3);
  CHECK(link_tier(c, up) == "core");
  Cluster two = test::load_cluster((test::data_dir() / "clusters" / "two-site-h100.json").string());
  for (EdgeId e = 0; e < two.num_edges(); ++e)
    if (two.link(e).kind == LinkKind::DCI) {
      CHECK(link_level(two, e) == kDciLevel);
      CHECK(link_tier(two, e) == "dci");
      break;
    }
}

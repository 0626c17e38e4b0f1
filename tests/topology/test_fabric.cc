#include <doctest/doctest.h>

#include "tests/support.h"

#include "topology/fabric.h"
#include "topology/load.h"
#include "topology/summary.h"

using namespace topoplan;

namespace {

Cluster build(const std::string& preset) { return test::load_cluster(preset); }

int count(const Cluster& c, DeviceKind k, int tier = -1) {
  int n = 0;
  for (VertexId v = 0; v < c.num_devices(); ++v)
    if (c.device(v).kind == k && (tier < 0 || c.device(v).tier == tier)) ++n;
  return n;
}

}  // namespace

TEST_CASE("fabric: presets name hosts h001.. and GPUs host-major") {
  Cluster c = build("dgx-h100:4");
  CHECK(c.gpus().size() == 32);
  CHECK(c.hosts().size() == 4);
  CHECK(c.gpus_per_host() == 8);
  CHECK(c.device(c.gpus()[11]).name == "h002/gpu3");
  CHECK(c.device(*c.find("h004/nic7")).rail == 7);
  // 8 rail leaves of 32 up ports each for one scalable unit: ceil(8 * 32 / 64) = 4 spines.
  CHECK(count(c, DeviceKind::switch_, 1) == 8);
  CHECK(count(c, DeviceKind::switch_, 2) == 4);
  CHECK(build("dgx-a100:1000").device(build("dgx-a100:1000").gpus()[0]).name == "h0001/gpu0");
}

TEST_CASE("fabric: a 4-SU H100 SuperPOD has 32 rail leaves and 16 spines, non-blocking") {
  Cluster c = build("dgx-h100:127");
  CHECK(count(c, DeviceKind::switch_, 1) == 32);
  CHECK(count(c, DeviceKind::switch_, 2) == 16);
  ClusterSummary s = cluster_summarize(c);
  REQUIRE(s.tiers.size() == 2);
  CHECK(s.tiers[0].up_GBps == doctest::Approx(32 * 32 * 50.0));
  CHECK(s.scaleup_domains == 127);
  CHECK(s.rails == 8);
}

TEST_CASE("fabric: three tiers with 7:1 oversubscription above the pods") {
  ClusterSpec spec = *preset_spec_parse("dgx-h100:256");
  spec.fabric.nodes_per_pod = 64;
  spec.fabric.pod_oversubscription = 7;
  Cluster c = *cluster_build(spec);
  // Per pod: 16 leaves; spines sized for 56 down ports (7/8 of 64): ceil(16*32/56) = 10.
  CHECK(count(c, DeviceKind::switch_, 2) == 40);
  // One core group per spine position: 10 groups of ceil(4 pods x 8 up ports / 64) = 1 core.
  CHECK(count(c, DeviceKind::switch_, 3) == 10);
  ClusterSummary s = cluster_summarize(c);
  REQUIRE(s.tiers.size() == 3);
  CHECK(s.tiers[1].down_GBps / s.tiers[1].up_GBps == doctest::Approx(7));
  CHECK(s.tiers[0].down_GBps / s.tiers[0].up_GBps == doctest::Approx(1));
}

TEST_CASE("fabric: GB200 NVL72 racks are one scale-up domain of 72 GPUs") {
  Cluster c = build("gb200-nvl72:2");
  CHECK(c.gpus().size() == 144);
  CHECK(c.hosts().size() == 36);
  ClusterSummary s = cluster_summarize(c);
  CHECK(s.scaleup_domains == 2);
  CHECK(s.largest_domain_gpus == 72);
  CHECK(count(c, DeviceKind::nvswitch) == 2);
}

TEST_CASE("fabric: tor, dual plane and two sites") {
  ClusterSpec spec = *preset_spec_parse("dgx-h100:8");
  spec.fabric.kind = FabricKind::tor;
  spec.fabric.nodes_per_su = 4;
  Cluster tor = *cluster_build(spec);
  CHECK(count(tor, DeviceKind::switch_, 1) == 2);
  CHECK(tor.out_edges(*tor.find("leaf0")).size() == 4 * 8 + 1);  // 4 hosts x 8 NICs, one spine

  spec = *preset_spec_parse("dgx-h100:4");
  spec.fabric.planes = 2;
  Cluster dual = *cluster_build(spec);
  CHECK(count(dual, DeviceKind::switch_, 1) == 16);
  VertexId nic = *dual.find("h001/nic0");
  CHECK(dual.out_edges(nic).size() == 3);  // PCIe + one port per plane
  CHECK(cluster_summarize(dual).injection_GBps == doctest::Approx(32 * 50.0));

  spec = *preset_spec_parse("dgx-h100:8");
  spec.sites = {{"siteA", 4}, {"siteB", 4}};
  spec.dci = {8, 400, 100};
  Cluster two = *cluster_build(spec);
  CHECK(two.find("siteA/dci0"));
  CHECK(two.find("siteB/leaf0"));
  ClusterSummary s = cluster_summarize(two);
  REQUIRE(s.dci.size() == 1);
  CHECK(s.dci[0].links == 8);
  CHECK(s.dci[0].GBps == doctest::Approx(400.0));
  CHECK(s.bisection_GBps == doctest::Approx(400.0));
  Result<SiteLink> link = site_link(two, "siteA", "siteB");
  REQUIRE(link);
  CHECK(link->length_km == 100);
  CHECK(site_link(two, "siteA", "sitB").error().find("did you mean 'siteB'") != std::string::npos);
}

TEST_CASE("fabric: bad specs and preset names") {
  CHECK(preset_spec_parse("dgx-h10:4").error().find("did you mean 'dgx-h100'") != std::string::npos);
  CHECK(preset_spec_parse("dgx-h100:0").error().find("positive number of nodes") != std::string::npos);
  CHECK(preset_spec_parse("dgx-h100:x").error().find("got 'x'") != std::string::npos);
  ClusterSpec spec = *preset_spec_parse("dgx-h100:8");
  spec.sites = {{"a", 4}, {"b", 3}};
  CHECK(cluster_build(spec).error().find("add up to 7, expected 8") != std::string::npos);
  spec.sites = {{"a", 4}, {"b", 4}};
  CHECK(cluster_build(spec).error().find("dci.links") != std::string::npos);
  spec = *preset_spec_parse("dgx-h100:8");
  spec.fabric.nodes_per_pod = 20;
  CHECK(cluster_build(spec).error().find("multiple of nodes_per_su") != std::string::npos);
  spec = *preset_spec_parse("gb200-nvl72:1");
  spec.nodes = 20;
  CHECK(cluster_build(spec).error().find("not a multiple") != std::string::npos);
}

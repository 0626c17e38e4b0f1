#include <doctest/doctest.h>

#include <chrono>

#include "base/limits.h"
#include "tests/support.h"
#include "topology/fabric_plan.h"
#include "topology/load.h"
#include "topology/summary.h"

using namespace topoplan;

namespace {

ClusterSpec preset(const std::string& text) {
  Result<ClusterSpec> s = preset_spec_parse(text);
  REQUIRE_MESSAGE(s.ok(), (s ? "" : s.error()));
  return *s;
}

int64_t switches(const Cluster& c) {
  int64_t n = 0;
  for (VertexId v = 0; v < c.num_devices(); ++v) n += c.device(v).kind == DeviceKind::switch_;
  return n;
}

std::string plan_error(const ClusterSpec& s) {
  Result<FabricPlan> p = fabric_plan(s);
  REQUIRE_FALSE(p.ok());
  return p.error();
}

}  // namespace

TEST_CASE("fabric plan: the counts are what cluster_build builds") {
  std::vector<ClusterSpec> specs = {preset("dgx-h100:1"),   preset("dgx-h100:4"),     preset("dgx-h100:256"),
                                    preset("dgx-h100:300"), preset("gb200-nvl72:20"), preset("pcie-l40s:600"),
                                    preset("dgx-a100:100")};
  ClusterSpec pods = preset("dgx-h100:256");
  pods.fabric.nodes_per_pod = 64;
  pods.fabric.pod_oversubscription = 7;
  specs.push_back(pods);
  ClusterSpec tor = preset("dgx-h100:40");
  tor.fabric.kind = FabricKind::tor;
  tor.fabric.nodes_per_su = 4;
  tor.fabric.planes = 2;
  specs.push_back(tor);
  ClusterSpec sites = preset("dgx-h100:600");
  sites.sites = {{"a", 300}, {"b", 200}, {"c", 100}};
  sites.dci = {4, 50, 10};
  specs.push_back(sites);
  ClusterSpec fixed = preset("dgx-h100:64");
  fixed.fabric.spines_per_pod = 3;
  fixed.fabric.nodes_per_pod = 32;
  fixed.fabric.cores = 5;
  specs.push_back(fixed);
  for (const ClusterSpec& s : specs) {
    CAPTURE(s.name);
    CAPTURE(s.sites.size());
    Result<FabricPlan> plan = fabric_plan(s);
    REQUIRE_MESSAGE(plan.ok(), (plan ? "" : plan.error()));
    Result<Cluster> c = cluster_build(s);
    REQUIRE_MESSAGE(c.ok(), (c ? "" : c.error()));
    CHECK(plan->devices == static_cast<int64_t>(c->num_devices()));
    CHECK(plan->links * 2 == static_cast<int64_t>(c->num_edges()));
    CHECK(plan->switches == switches(*c));
    CHECK(plan->gpus == static_cast<int64_t>(c->gpus().size()));
  }
}

TEST_CASE("fabric plan: two tiers while they connect every node, then pods under a core tier") {
  // 64-port spines have a port per leaf: 64 rail leaves are 8 scalable units of 32 DGX nodes.
  FabricPlan two = *fabric_plan(preset("dgx-h100:256"));
  CHECK(two.nodes_per_pod == 0);
  CHECK(two.two_tier_max_nodes == 256);
  CHECK(two.note == "rail-optimized, 2 tiers, scalable units of 32 nodes");
  // Past that, pods of what 32 down ports per spine connect: 4 units of 32 nodes.
  FabricPlan three = *fabric_plan(preset("dgx-h100:257"));
  CHECK(three.nodes_per_pod == 128);
  CHECK(three.pods_by_default);
  CHECK(three.note.find("3 tiers: pods of 128 nodes under a core tier, added because two tiers of 64-port switches "
                        "connect at most 256 nodes and the cluster has 257") != std::string::npos);
  // An explicit 0 keeps two tiers while a leaf's uplinks reach every spine; past that it is
  // refused (128 leaves need 64 spines, a leaf has 32 ports up). An explicit pod size is kept.
  ClusterSpec forced = preset("dgx-h100:256");
  forced.fabric.nodes_per_pod = 0;
  CHECK(fabric_plan(forced)->nodes_per_pod == 0);
  forced.nodes = 512;
  CHECK(
      plan_error(forced).find("fabric: a pod would have 64 spines but a leaf has 32 uplink ports, and every leaf needs "
                              "a port to every spine; use pods under a core tier") == 0);
  // NVL72: scalable units of 8 racks (144 trays) on 4 rails; two tiers up to 16 units, then pods
  // of 8 units (64 racks).
  FabricPlan nvl = *fabric_plan(preset("gb200-nvl72:17"));
  CHECK(nvl.nodes_per_pod == 0);
  CHECK(nvl.two_tier_max_nodes == 16 * 144);
  CHECK(fabric_plan(preset("gb200-nvl72:129"))->nodes_per_pod == 8 * 144);
  Cluster c = test::load_cluster("dgx-h100:300");
  CHECK(cluster_summarize(c).tiers.size() == 3);
  CHECK(summary_to_text(cluster_summarize(c)).find("  fabric: rail-optimized, 3 tiers") != std::string::npos);
}

TEST_CASE("fabric plan: 100,000 GPUs from a preset build in seconds, not minutes") {
  auto t0 = std::chrono::steady_clock::now();
  Cluster c = test::load_cluster("dgx-h100:12500");
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(c.gpus().size() == 100000);
  CHECK(cluster_summarize(c).tiers.size() == 3);
  // About 1.5 s on a 2-core machine; the old two-tier default took minutes. Generous for sanitizers.
  CHECK_MESSAGE(s < 60, s);
}

TEST_CASE("fabric plan: limits refuse absurd specs before anything is built, naming limit and input") {
  CHECK(preset_spec_parse("dgx-h100:2147483647").error() ==
        "cluster 'dgx-h100:2147483647': 2147483647 nodes of 8 GPUs are more than the limit of 1,048,576 GPUs (131,072 "
        "nodes)");
  CHECK(
      preset_spec_parse("gb200-nvl72:99999999999999999999").error().find("racks of 72 GPUs are more than the limit") !=
      std::string::npos);
  CHECK(preset_spec_parse("dgx-h100").error() ==
        "cluster 'dgx-h100': give the number of nodes, e.g. 'dgx-h100:32' (NAME:N)");
  CHECK(preset_spec_parse("gb200-nvl72").error().find("give the number of racks") != std::string::npos);

  ClusterSpec su = preset("dgx-h100:4");
  su.fabric.nodes_per_su = 1000000000;
  std::string e = plan_error(su);
  CHECK_MESSAGE(e.find("fabric: the cluster would have") == 0, e);
  CHECK_MESSAGE(e.find("more than the limit of 8,388,608 devices") != std::string::npos, e);
  CHECK_MESSAGE(e.find("fabric.nodes_per_su 1000000000") != std::string::npos, e);

  ClusterSpec spines = preset("dgx-h100:4");
  spines.fabric.spines_per_pod = 1000000000;
  e = plan_error(spines);
  CHECK_MESSAGE(e.find("spines_per_pod 1000000000") != std::string::npos, e);

  ClusterSpec big = preset("dgx-h100:4");
  big.nodes = 2000000000;
  CHECK(
      plan_error(big) ==
      "nodes: 2000000000 nodes of 8 GPUs are 16,000,000,000 GPUs, more than the limit of 1,048,576 GPUs in a cluster");

  // Links are whole ports, so no link is thinner than a port: many spines are refused by the
  // uplinks a leaf has.
  ClusterSpec thin = preset("dgx-h100:64");
  thin.fabric.spines_per_pod = 2000000;
  thin.fabric.nodes_per_pod = 32;
  e = plan_error(thin);
  CHECK_MESSAGE(e.find("fabric.spines_per_pod: a pod would have 2,000,000 spines but a leaf has 32 uplink ports") == 0,
                e);

  ClusterSpec ratio = preset("dgx-h100:4");
  ratio.fabric.leaf_oversubscription = 1e300;
  CHECK(plan_error(ratio) == "fabric.leaf_oversubscription: expected a ratio from 1 to 1000, got 1e+300");

  ClusterSpec sites = preset("dgx-h100:4");
  sites.sites = {{"a", 1}, {"b", 1}, {"c", 1}, {"d", 1}};
  sites.dci = {1000000000, 50, 1};
  CHECK(plan_error(sites).find("more than the limit") != std::string::npos);
}

TEST_CASE("fabric plan: the largest preset accepted builds within the limits' promise") {
  // Counting is arithmetic: the plan of the largest accepted cluster is instant and within limits.
  const int64_t most = limits::kMaxGpus / 8;
  Result<FabricPlan> p = fabric_plan(preset("dgx-h100:" + std::to_string(most)));
  REQUIRE_MESSAGE(p.ok(), (p ? "" : p.error()));
  CHECK(p->gpus == limits::kMaxGpus);
  CHECK(p->devices <= limits::kMaxDevices);
  CHECK(p->links <= limits::kMaxLinks);
}

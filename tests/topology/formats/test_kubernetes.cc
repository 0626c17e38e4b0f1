#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "tests/support.h"
#include "topology/formats/json.h"
#include "topology/formats/kubernetes.h"

using namespace topoplan;

TEST_CASE("kubernetes: topograph labels down a three-tier fabric, Kueue levels top down") {
  const Cluster c = test::load_cluster("dgx-h100:512");  // pods of 128 nodes under a core tier
  const std::string labels = k8s_labels_write(c, K8sLabels::topograph);
  CHECK(labels.find("kubectl label node h001 --overwrite network.topology.nvidia.com/block=leaf0 "
                    "network.topology.nvidia.com/spine=spine0 network.topology.nvidia.com/datacenter=core0\n") !=
        std::string::npos);
  // Host 300 is in the third pod's third scalable unit: its own leaf group and pod spine.
  CHECK(labels.find("kubectl label node h300 --overwrite network.topology.nvidia.com/block=leaf72 "
                    "network.topology.nvidia.com/spine=spine64 ") != std::string::npos);
  CHECK(labels.find("accelerator") == std::string::npos);  // NVLink domains are single hosts here
  const std::string topology = kueue_topology_write(c, K8sLabels::topograph);
  CHECK(topology.find("kind: Topology\nmetadata:\n  name: dgx-h100-512\n") != std::string::npos);
  CHECK(topology.find("  - nodeLabel: \"network.topology.nvidia.com/datacenter\"\n"
                      "  - nodeLabel: \"network.topology.nvidia.com/spine\"\n"
                      "  - nodeLabel: \"network.topology.nvidia.com/block\"\n"
                      "  - nodeLabel: \"kubernetes.io/hostname\"\n") != std::string::npos);
}

TEST_CASE("kubernetes: NVL72 racks as accelerator domains; names made label values") {
  const std::string labels = k8s_labels_write(test::load_cluster("gb200-nvl72:2"), K8sLabels::topograph);
  CHECK(labels.find("kubectl label node h019 --overwrite network.topology.nvidia.com/accelerator=r002 ") !=
        std::string::npos);
  CHECK(kueue_topology_write(test::load_cluster("gb200-nvl72:2"), K8sLabels::topograph)
            .find("nvidia.com/accelerator\"\n  - nodeLabel: \"kubernetes.io/hostname\"") != std::string::npos);
  const std::string sites = k8s_labels_write(
      test::load_cluster((test::data_dir() / "clusters/two-site-h100.json").string()), K8sLabels::topograph);
  CHECK(sites.find("network.topology.nvidia.com/block=siteA-leaf0 ") !=
        std::string::npos);  // '/' is not a label character
}

TEST_CASE("kubernetes: numbered tiers go as high as the fabric, past topograph's three levels") {
  // dgx-h100:32 (leaf, spine) with two tiers added above its spines, in an explicit graph.
  nlohmann::json doc = nlohmann::json::parse(save_cluster_json(test::load_cluster("dgx-h100:32")));
  std::vector<std::string> spines;
  for (const nlohmann::json& d : doc["devices"])
    if (d["kind"] == "switch" && d["tier"] == 2) spines.push_back(d["name"]);
  REQUIRE(!spines.empty());
  doc["devices"].push_back({{"name", "core0"}, {"kind", "switch"}, {"site", "site0"}, {"tier", 3}});
  doc["devices"].push_back({{"name", "top0"}, {"kind", "switch"}, {"site", "site0"}, {"tier", 4}});
  for (const std::string& s : spines)
    doc["links"].push_back({{"a", s}, {"b", "core0"}, {"kind", "NET"}, {"bw_GBps", 50}, {"latency_us", 0.6}});
  doc["links"].push_back({{"a", "core0"}, {"b", "top0"}, {"kind", "NET"}, {"bw_GBps", 50}, {"latency_us", 0.6}});
  Result<Cluster> c = cluster_from_document(doc, "four-tier");
  REQUIRE_MESSAGE(c, c.error());

  const std::string tiers = k8s_labels_write(*c, K8sLabels::tiers);
  CHECK(tiers.find(
            "kubectl label node h001 --overwrite fabric.topograph.run/tier-1=leaf0 fabric.topograph.run/tier-2=spine0 "
            "fabric.topograph.run/tier-3=core0 fabric.topograph.run/tier-4=top0\n") != std::string::npos);
  CHECK(
      kueue_topology_write(*c, K8sLabels::tiers).find("  levels:\n  - nodeLabel: \"fabric.topograph.run/tier-4\"\n") !=
      std::string::npos);
  // Topograph names three switch levels and stops there.
  CHECK(k8s_labels_write(*c, K8sLabels::topograph).find("datacenter=core0\n") != std::string::npos);

  const std::string racks = k8s_labels_write(test::load_cluster("gb200-nvl72:2"), K8sLabels::tiers);
  CHECK(racks.find(
            "kubectl label node h019 --overwrite accelerator.topograph.run/domain=r002 fabric.topograph.run/tier-1=") !=
        std::string::npos);
  CHECK(kueue_topology_write(test::load_cluster("gb200-nvl72:2"), K8sLabels::tiers)
            .find("  - nodeLabel: \"accelerator.topograph.run/domain\"\n  - nodeLabel: \"kubernetes.io/hostname\"\n") !=
        std::string::npos);
}

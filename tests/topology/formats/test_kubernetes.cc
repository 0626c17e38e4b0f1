#include <doctest/doctest.h>

#include "tests/support.h"
#include "topology/formats/kubernetes.h"

using namespace topoplan;

TEST_CASE("kubernetes: topograph labels down a three-tier fabric, Kueue levels top down") {
  const Cluster c = test::load_cluster("dgx-h100:512");  // pods of 128 nodes under a core tier
  const std::string labels = k8s_labels_write(c);
  CHECK(labels.find("kubectl label node h001 --overwrite network.topology.nvidia.com/block=leaf0 "
                    "network.topology.nvidia.com/spine=spine0 network.topology.nvidia.com/datacenter=core0\n") != std::string::npos);
  // Host 300 is in the third pod's third scalable unit: its own leaf group and pod spine.
  CHECK(labels.find("kubectl label node h300 --overwrite network.topology.nvidia.com/block=leaf72 "
                    "network.topology.nvidia.com/spine=spine64 ") != std::string::npos);
  CHECK(labels.find("accelerator") == std::string::npos);  // NVLink domains are single hosts here
  const std::string topology = kueue_topology_write(c);
  CHECK(topology.find("kind: Topology\nmetadata:\n  name: dgx-h100-512\n") != std::string::npos);
  CHECK(topology.find("  - nodeLabel: \"network.topology.nvidia.com/datacenter\"\n"
                      "  - nodeLabel: \"network.topology.nvidia.com/spine\"\n"
                      "  - nodeLabel: \"network.topology.nvidia.com/block\"\n"
                      "  - nodeLabel: \"kubernetes.io/hostname\"\n") != std::string::npos);
}

TEST_CASE("kubernetes: NVL72 racks as accelerator domains; names made label values") {
  const std::string labels = k8s_labels_write(test::load_cluster("gb200-nvl72:2"));
  CHECK(labels.find("kubectl label node h019 --overwrite network.topology.nvidia.com/accelerator=r002 ") != std::string::npos);
  CHECK(kueue_topology_write(test::load_cluster("gb200-nvl72:2")).find("nvidia.com/accelerator\"\n  - nodeLabel: \"kubernetes.io/hostname\"") !=
        std::string::npos);
  const std::string sites = k8s_labels_write(test::load_cluster((test::data_dir() / "clusters/two-site-h100.json").string()));
  CHECK(sites.find("network.topology.nvidia.com/block=siteA-leaf0 ") != std::string::npos);  // '/' is not a label character
}

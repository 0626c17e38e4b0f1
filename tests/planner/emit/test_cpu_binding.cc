#include "planner/emit/cpu_binding.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tests/support.h"
#include "topology/fabric.h"
#include "topology/formats/json.h"

namespace topoplan {
namespace {

// "socket:first-last" per GPU of the first host, "socket:*" for a whole socket.
std::vector<std::string> describe(const Cluster& c) {
  std::vector<std::string> out;
  for (const CpuBinding& b : cpu_bindings(c, 0))
    out.push_back(std::to_string(b.socket) + ":" +
                  (b.first_core < 0 ? "*" : std::to_string(b.first_core) + "-" + std::to_string(b.last_core)));
  return out;
}

}  // namespace

TEST_CASE("emit cpu binding: each socket's cores split evenly among the GPUs under it") {
  // DGX A100: two GPUs per PCIe switch, GPUs 0-3 under socket 0; 64 cores per EPYC 7742.
  CHECK(describe(test::load_cluster("dgx-a100:1")) ==
        std::vector<std::string>{"0:0-15", "0:16-31", "0:32-47", "0:48-63", "1:0-15", "1:16-31", "1:32-47", "1:48-63"});
  // GB200 tray: GPUs on Grace by C2C, two per Grace of 72 cores.
  CHECK(describe(test::load_cluster("gb200-nvl72:1")) ==
        std::vector<std::string>{"0:0-35", "0:36-71", "1:0-35", "1:36-71"});
  CHECK(describe(test::load_cluster("hgx-b200:1"))[5] == "1:14-27");
}

TEST_CASE("emit cpu binding: the host carries its cores, so graphs and imported node types keep them") {
  Cluster preset = test::load_cluster("dgx-h100:1");
  nlohmann::json doc = nlohmann::json::parse(save_cluster_json(preset));
  CHECK(doc["hosts"][0]["cores_per_cpu"] == 56);
  Cluster saved = *cluster_from_json(doc, "saved.json");
  CHECK(describe(saved) == describe(preset));

  // A graph that does not say how many cores its CPUs have binds whole sockets.
  nlohmann::json unknown = doc;
  unknown["hosts"][0].erase("cores_per_cpu");
  std::vector<std::string> d = describe(*cluster_from_json(unknown, "edited.json"));
  REQUIRE(d.size() == 8);
  CHECK(d[0] == "0:*");
  CHECK(d[7] == "1:*");

  // A node type no preset names (as `import` writes) still gives its cores: 4 GPUs per socket of 32.
  ClusterSpec spec;
  spec.node = *node_type_named("dgx-h100");
  spec.node.name = "imported-server";
  spec.node.cores_per_cpu = 32;
  spec.nodes = 1;
  spec.name = "imported";
  spec.fabric = fabric_default(spec.node);
  CHECK(describe(*cluster_build(spec))[5] == "1:8-15");
}

}  // namespace topoplan

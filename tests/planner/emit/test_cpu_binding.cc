#include "planner/emit/cpu_binding.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tests/support.h"
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
  CHECK(describe(test::load_cluster("gb200-nvl72:1")) == std::vector<std::string>{"0:0-35", "0:36-71", "1:0-35", "1:36-71"});
  CHECK(describe(test::load_cluster("hgx-b200:1"))[5] == "1:14-27");
}

TEST_CASE("emit cpu binding: an explicit graph keeps its node type's cores unless its CPUs differ") {
  Cluster preset = test::load_cluster("dgx-h100:1");
  nlohmann::json doc = nlohmann::json::parse(save_cluster_json(preset));
  Cluster saved = *cluster_from_json(doc, "saved.json");
  CHECK(describe(saved) == describe(preset));

  // The same file with socket 1 removed: the node type no longer describes it.
  nlohmann::json edited = doc;
  auto& devices = edited["devices"];
  devices.erase(std::remove_if(devices.begin(), devices.end(), [](const nlohmann::json& d) { return d["name"] == "h001/cpu1"; }),
                devices.end());
  auto& links = edited["links"];
  for (auto& l : links)  // the PCIe switches of socket 1 move to socket 0
    if (l["b"] == "h001/cpu1" && l["a"] != "h001/cpu0") l["b"] = "h001/cpu0";
  links.erase(std::remove_if(links.begin(), links.end(),
                             [](const nlohmann::json& l) { return l["a"] == "h001/cpu1" || l["b"] == "h001/cpu1"; }),
              links.end());
  Result<Cluster> one_socket = cluster_from_json(edited, "edited.json");
  REQUIRE_MESSAGE(one_socket.ok(), (one_socket ? "" : one_socket.error()));
  std::vector<std::string> d = describe(*one_socket);
  REQUIRE(d.size() == 8);
  CHECK(d[0] == "0:*");
  CHECK(d[7] == "0:*");
}

}  // namespace topoplan

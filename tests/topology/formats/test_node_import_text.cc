#include "topology/formats/node_import_text.h"

#include <doctest/doctest.h>

#include "tests/support.h"
#include "topology/formats/hwloc.h"
#include "topology/formats/nvidia_smi.h"

using namespace topoplan;

namespace {

// The fuzz seed's one GPU and one NIC, filled in from dgx-h100: `nodes` of it when > 0.
Result<NodeImport> one_gpu(int nodes) {
  const std::string seed = test::read_file(test::source_dir() / "fuzz/corpus/hwloc/one-gpu-one-nic.xml");
  Result<NodeFacts> facts = hwloc_xml_facts(seed, "seed.xml");
  REQUIRE(facts);
  NodeHintOptions options;
  options.base = "dgx-h100";
  options.gpu_model = "H100-SXM5";
  NodeType base;
  Result<NodeHints> hints = node_hints_make(options, "seed", &base);
  REQUIRE(hints);
  return node_import(*facts, *hints, nodes, "seed.xml");
}

}  // namespace

TEST_CASE("node import text: the type, each field with where it came from, the names, what -o does") {
  const Result<NodeImport> type = one_gpu(0);
  REQUIRE_MESSAGE(type, (type ? "" : type.error()));
  const std::string t = node_import_text(*type, "seed.xml", 0, "");
  CHECK(t.starts_with("seed.xml: node type 'seed': 1 x H100-SXM5, 1 NIC, 1 CPU\n  field  "));
  CHECK(t.find("\n  gpu_model             H100-SXM5   --gpu-model\n") != std::string::npos);
  CHECK(t.find("\n  gpus                  1           file: counted\n") != std::string::npos);
  CHECK(t.find("\n  NICs in rail order: mlx5_0\n  GPU bus IDs: 0000:02:00.0\n") != std::string::npos);
  CHECK(t.find("format") == std::string::npos);
  CHECK(t.ends_with("\n(-o FILE writes it; --nodes N writes a cluster recipe of N such nodes)\n"));
  CHECK(node_import_text(*type, "seed.xml", 0, "n.json")
            .ends_with("\nwrote n.json: a node type; a recipe takes it as \"node\" (with \"nodes\": N)\n"));
  const Result<NodeImport> recipe = one_gpu(3);
  REQUIRE(recipe);
  const std::string r = node_import_text(*recipe, "seed.xml", 3, "r.json");
  CHECK(r.find("\n  gpu_model             H100-SXM5   --gpu-model\n") != std::string::npos);
  CHECK(r.ends_with("\nwrote r.json: a cluster recipe of 3 such nodes\n"));
}

TEST_CASE("node import json: the head, the type or recipe, the sources, what was written") {
  const nlohmann::ordered_json j = node_import_json(*one_gpu(0), {{"file", "seed.xml"}, {"format", "hwloc"}}, 0, "");
  CHECK(j.begin().key() == "file");
  CHECK(j["node_type"]["gpu_model"] == "H100-SXM5");
  CHECK(j["sources"]["gpu_model"] == "--gpu-model");
  CHECK_FALSE(j.contains("written"));
  CHECK_FALSE(j.contains("note"));
  const nlohmann::ordered_json r = node_import_json(*one_gpu(2), nlohmann::ordered_json::object(), 2, "r.json");
  CHECK(r["recipe"]["nodes"] == 2);
  CHECK_FALSE(r.contains("node_type"));
  CHECK(r["written"] == "r.json");
}

TEST_CASE("node import text: a DGX-1's mesh as pairs by NVLinks; a server without NICs is no cluster" *
          doctest::skip(test::reference_absent())) {
  Result<NodeFacts> mesh =
      nvidia_smi_topo_parse(test::read_file(test::sample_path("nvsmi-topo-dgx1-v100-hybridcube-4nic.txt")), "dgx1.txt");
  REQUIRE(mesh);
  NodeHintOptions options;
  options.gpu_model = "V100-SXM2";
  options.nic_rate = "100Gbps";
  options.pcie_rate = "15.75GB/s";
  NodeType base;
  Result<NodeImport> dgx1 = node_import(*mesh, *node_hints_make(options, "dgx1", &base), 0, "dgx1.txt");
  REQUIRE_MESSAGE(dgx1, (dgx1 ? "" : dgx1.error()));
  CHECK(node_import_text(*dgx1, "dgx1.txt", 0, "").find("a mesh, 16 GPU pairs bonded: 8 by 2 NVLinks, 8 by 1 NVLink") !=
        std::string::npos);

  Result<NodeFacts> no_nics =
      hwloc_xml_facts(test::read_file(test::sample_path("hwloc-nvidia-dgx2h-v100-nvswitch.xml")), "dgx2h.xml");
  REQUIRE(no_nics);
  Result<NodeImport> dgx2 = node_import(*no_nics, *node_hints_make({}, "dgx2h", &base), 0, "dgx2h.xml");
  REQUIRE_MESSAGE(dgx2, (dgx2 ? "" : dgx2.error()));
  CHECK(node_import_text(*dgx2, "dgx2h.xml", 0, "")
            .find("\n  note: no NICs: a recipe cannot join hosts of this type into a cluster\n") != std::string::npos);
  CHECK(node_import_json(*dgx2, {}, 0, "")["note"] ==
        "no NICs: a recipe cannot join hosts of this type into a cluster");
}

TEST_CASE("fabric import text and json: hosts of the node type, switches by tier, the notes") {
  const std::string file =
      (test::source_dir() / "tests" / "samples" / "ibnetdiscover" / "ibsim-2switch-2hcas.txt").string();
  Result<FabricImport> fabric = fabric_import(**import_format_named("ibnetdiscover"), file, "dgx-h100", {});
  REQUIRE_MESSAGE(fabric, (fabric ? "" : fabric.error()));
  const std::string t = fabric_import_text(*fabric, "ib.txt", "ibnetdiscover", "");
  CHECK(t.starts_with(
      "ib.txt (ibnetdiscover): 2 hosts of dgx-h100 (16 GPUs), switches 1 at tier 1, 1 at tier 2\n  note: 2 hosts "));
  CHECK(t.ends_with("\n(-o FILE writes the cluster)\n"));
  CHECK(fabric_import_text(*fabric, "ib.txt", "ibnetdiscover", "c.json")
            .ends_with("\nwrote c.json: the cluster as an explicit graph, which every CLUSTER argument takes\n"));
  const nlohmann::ordered_json j = fabric_import_json(*fabric, "ib.txt", "ibnetdiscover", "c.json");
  CHECK(j["node_type"] == "dgx-h100");
  CHECK(j["hosts"] == 2);
  CHECK(j["gpus"] == 16);
  CHECK(j["tiers"] == nlohmann::ordered_json::parse(R"([{"tier": 1, "switches": 1}, {"tier": 2, "switches": 1}])"));
  CHECK(j["notes"].size() == 1);
  CHECK(j["written"] == "c.json");
}

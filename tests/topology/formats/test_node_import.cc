#include "topology/formats/node_import.h"

#include <doctest/doctest.h>

#include "tests/support.h"
#include "topology/formats/nvidia_smi.h"

using namespace topoplan;

TEST_CASE("node import: the options become hints, the type builds, N of it make a recipe" *
          doctest::skip(test::reference_absent())) {
  Result<NodeFacts> facts =
      nvidia_smi_topo_parse(test::read_file(test::sample_path("nvsmi-topo-h100-nv18-8nic.txt")), "topo.txt");
  REQUIRE(facts);
  NodeHintOptions options;
  options.base = "dgx-h100";
  options.nic_rate = "400Gbps";
  NodeType base;
  Result<NodeHints> hints = node_hints_make(options, "lab", &base);
  REQUIRE(hints);
  CHECK(hints->name == "lab");
  CHECK(hints->nic_gbit_s == doctest::Approx(400));
  Result<NodeImport> type = node_import(*facts, *hints, 0, "topo.txt");
  REQUIRE_MESSAGE(type, (type ? "" : type.error()));
  REQUIRE(type->cluster);
  CHECK(type->cluster->hosts().size() == 1);
  CHECK(type->document["gpu_model"] == "H100-SXM5");
  Result<NodeImport> recipe = node_import(*facts, *hints, 4, "topo.txt");
  REQUIRE(recipe);
  CHECK(recipe->document["nodes"] == 4);
  CHECK(recipe->recipe_name == "lab:4");
  CHECK(recipe->cluster->hosts().size() == 4);
}

TEST_CASE("node import: bad options and a fabric without a node type say which option") {
  NodeHintOptions options;
  options.pcie_rate = "fast";
  NodeType base;
  Result<NodeHints> hints = node_hints_make(options, "x", &base);
  REQUIRE_FALSE(hints);
  CHECK(hints.error().find("--pcie-rate: ") == 0);
  options = {};
  options.base = "dgx-h10";
  CHECK(
      node_hints_make(options, "x", &base).error().find("--base: unknown preset 'dgx-h10', did you mean 'dgx-h100'?") ==
      0);
  const ImportFormat& slurm = **import_format_named("slurm-topology");
  Result<FabricImport> none = fabric_import(slurm, "topology.conf", "", {});
  REQUIRE_FALSE(none);
  CHECK(none.error().find("slurm-topology: give --node-type PRESET or FILE") == 0);
  ClusterImportOptions steep;
  steep.oversubscription = 0.5;
  CHECK(fabric_import(slurm, "topology.conf", "dgx-h100", steep)
            .error()
            .find("--oversubscription: expected a ratio from 1") == 0);
}

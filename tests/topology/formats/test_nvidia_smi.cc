#include <doctest/doctest.h>

#include "tests/topology/formats/node_samples.h"
#include "topology/formats/nvidia_smi.h"

using namespace topoplan;

namespace {

NodeFacts sample(const std::string& name) { return test::node_sample(nvidia_smi_topo_parse, name); }

std::string parse_error(const std::string& text) {
  Result<NodeFacts> f = nvidia_smi_topo_parse(text, "topo.txt");
  REQUIRE_FALSE(f.ok());
  return f.error();
}

const char* kTwoGpus =
    "\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\n"
    "GPU0\t X \tNV4\tPIX\t0-7\t0\n"
    "GPU1\tNV4\t X \tSYS\t8-15\t1\n"
    "NIC0\tPIX\tSYS\t X \n";

}  // namespace

TEST_CASE("nvidia-smi: DGX H100, every pair NV18, a NIC beside each GPU" * doctest::skip(test::reference_absent())) {
  const NodeFacts f = sample("nvsmi-topo-h100-nv18-8nic.txt");
  CHECK(f.gpus.size() == 8);
  CHECK(f.nics.size() == 8);
  CHECK(f.nics[7].name == "mlx5_7");  // from the NIC legend
  CHECK(f.peer_nvlinks[0][7] == 18);
  CHECK(f.gpus[3].numa == 0);
  CHECK(f.gpus[4].numa == 1);
  CHECK(f.nics[4].numa == 1);
  CHECK(f.gpus[2].pcie_switch == f.nics[2].pcie_switch);
  CHECK(f.gpus[2].pcie_switch != f.gpus[3].pcie_switch);
  const NodeType t = test::inferred(f, "dgx-h100");
  CHECK(t.gpus == 8);
  CHECK(t.nics == 8);
  CHECK(t.nvlink_GBps == 450);  // 18 x 25 GB/s
  CHECK(t.gpus_per_pcie_switch == 1);
  CHECK(t.cpus == 2);
  CHECK(t.nic_switch.empty());  // NIC i under switch i, as a built host puts it
}

TEST_CASE("nvidia-smi: DGX A100, NV12, two GPUs and two NICs per PXB switch" *
          doctest::skip(test::reference_absent())) {
  const NodeFacts f = sample("nvsmi-topo-a100-nv12-8nic.txt");
  CHECK(f.gpus.size() == 8);
  CHECK(f.nics.size() == 8);
  const NodeType t = test::inferred(f, "dgx-a100");
  CHECK(t.nvlink_GBps == 300);
  CHECK(t.gpus_per_pcie_switch == 2);  // GPU pairs meet through the NICs they share (GPU-GPU shows NV12)
  CHECK(t.cpus == 2);
  CHECK(t.nic_switch.empty());  // NICs 2s and 2s+1 under switch s
}

TEST_CASE("nvidia-smi: a PCIe-only server places dual-port NICs by NUMA node" *
          doctest::skip(test::reference_absent())) {
  const NodeType t = test::inferred(sample("nvsmi-topo-pcie-rtx6000ada-4nic.txt"), "pcie-l40s");
  CHECK(t.gpus == 4);
  CHECK(t.nvlink_GBps == 0);
  CHECK(t.cpus == 2);
  CHECK(t.nic_switch == std::vector<int>{0, 0, 2, 2});  // both ports of each NIC on its socket's first GPU switch
}

TEST_CASE("nvidia-smi: the legacy SOC code, tabs, NUMA nodes from CPU affinity" *
          doctest::skip(test::reference_absent())) {
  const NodeFacts f = sample("nvsmi-topo-k40m-soc-legacy.txt");
  CHECK(f.gpus.size() == 4);
  REQUIRE(f.nics.size() == 1);
  CHECK(f.nics[0].name == "mlx4_0");
  CHECK(f.gpus[1].numa == f.gpus[0].numa);
  CHECK(f.gpus[2].numa != f.gpus[0].numa);
  CHECK(f.nics[0].numa == f.gpus[2].numa);  // PHB to GPU2: the same socket
  const NodeType t = test::inferred(f, "pcie-l40s");
  CHECK(t.cpus == 2);
  CHECK(t.nic_switch == std::vector<int>{2});
}

TEST_CASE("nvidia-smi: DGX-1's hybrid cube mesh becomes a node type with its bonds" *
          doctest::skip(test::reference_absent())) {
  const NodeFacts f = sample("nvsmi-topo-dgx1-v100-hybridcube-4nic.txt");
  CHECK(f.gpus.size() == 8);
  CHECK(f.nics.size() == 4);
  CHECK(f.nics[0].name == "mlx5_2");  // columns as printed, unsorted
  CHECK(f.peer_nvlinks[0][3] == 2);
  CHECK(f.peer_nvlinks[0][5] == 0);
  NodeHints hints;
  hints.gpu_model = "V100-SXM2";
  hints.nic_gbit_s = 100;
  hints.pcie_GBps = 15.75;
  Result<NodeTypeInference> t = node_type_infer(f, hints);
  REQUIRE_MESSAGE(t.ok(), t.error());
  CHECK(t->type.nvlink_GBps == 150);  // 6 NVLink2 links x 25 GB/s
  REQUIRE(t->type.nvlink_bonds.size() == 8);
  CHECK(t->type.nvlink_bonds[0] == std::vector<int>{0, 1, 1, 2, 2, 0, 0, 0});
  CHECK(t->type.nvlink_bonds[7] == std::vector<int>{0, 0, 0, 1, 2, 1, 2, 0});
  CHECK(nvlink_bond_GBps(t->type, 0, 3) == 50);
  CHECK(nvlink_bond_GBps(t->type, 0, 5) == 0);
  CHECK(t->type.gpus_per_pcie_switch == 2);
  CHECK(t->type.nic_names == std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"});
  // --nvlinks would replace the file's pairs with one count per GPU: refused.
  hints.nvlinks = 6;
  Result<NodeTypeInference> forced = node_type_infer(f, hints);
  REQUIRE_FALSE(forced.ok());
  CHECK(forced.error().find("--nvlinks: the file bonds GPUs to each other point to point") != std::string::npos);
}

TEST_CASE("nvidia-smi: a full mesh of direct bonds is not taken for an NVSwitch") {
  auto matrix = [](const std::vector<std::string>& pair) {
    std::string text = "        GPU0 GPU1 GPU2 GPU3\n";
    for (int r = 0; r < 4; ++r) {
      text += "GPU" + std::to_string(r);
      for (int c = 0; c < 4; ++c) text += "  " + pair[static_cast<size_t>(r == c ? 0 : 1)];
      text += "\n";
    }
    return text;
  };
  Result<NodeFacts> f = nvidia_smi_topo_parse(matrix({"X", "NV4"}), "hgx4.txt");
  REQUIRE(f.ok());
  NodeHints hints;
  hints.gpu_model = "A100-SXM4";
  hints.pcie_GBps = 31.5;
  Result<NodeTypeInference> t = node_type_infer(*f, hints);
  REQUIRE_MESSAGE(t.ok(), t.error());  // 4 x 3 = 12 links: all an A100 has, so no NVSwitch
  CHECK(t->type.nvlink_GBps == 300);
  CHECK(t->type.nvlink_bonds[1] == std::vector<int>{4, 0, 4, 4});
  // With a GPU model of unknown NVLink count an even matrix could be either.
  hints.gpu_model = "X1";
  hints.nvlink_lane_GBps = 25;
  Result<NodeTypeInference> unknown = node_type_infer(*f, hints);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().find("may be an NVSwitch or a mesh of direct bonds") != std::string::npos);
  // An uneven mesh: GPUs 0 and 1 double-bonded, every other pair single: 4 links on 0 and 1, 3
  // on 2 and 3.
  std::string uneven = matrix({"X", "NV1"});
  for (const char* row : {"GPU0", "GPU1"}) {
    const size_t at = uneven.find(row, uneven.find('\n'));
    const size_t cell = uneven.find("NV1", at + (row[3] == '0' ? 4 : 0));
    uneven.replace(cell, 3, "NV2");
  }
  Result<NodeFacts> g = nvidia_smi_topo_parse(uneven, "uneven.txt");
  REQUIRE_MESSAGE(g.ok(), g.error());
  hints.gpu_model = "A100-SXM4";
  Result<NodeTypeInference> u = node_type_infer(*g, hints);
  REQUIRE_FALSE(u.ok());
  CHECK(u.error().find(
            "GPU2 has 3 NVLinks to other GPUs, GPU0 4: a node type gives every GPU the same NVLink bandwidth") !=
        std::string::npos);
}

TEST_CASE("nvidia-smi: what the file does not say is asked for at once, each value with its option") {
  Result<NodeFacts> f = nvidia_smi_topo_parse(kTwoGpus, "two.txt");
  REQUIRE(f.ok());
  NodeHints hints;
  Result<NodeTypeInference> t = node_type_infer(*f, hints);
  REQUIRE_FALSE(t.ok());
  CHECK(t.error() ==
        "two.txt (nvidia-smi topo -m): the file leaves out 4 values a node type needs; give each with its option (or "
        "--base "
        "PRESET to take what the options leave out from one of dgx-a100, dgx-h100, hgx-h200, hgx-b200, gb200-nvl72, "
        "pcie-l40s):\n"
        "  the GPU model: --gpu-model M, e.g. H100-SXM5, A100-SXM4, L40S\n"
        "  the NIC rate: --nic-rate R, e.g. 100Gbps, 200Gbps (HDR), 400Gbps (NDR)\n"
        "  the PCIe rate (the file gives no link speed): --pcie-rate R per direction, e.g. 31.5GB/s (Gen4 x16), 63GB/s "
        "(Gen5 x16)\n"
        "  the link between the 2 NUMA nodes (the file names no CPU): --cpu-model M, e.g. Xeon-8480C, EPYC-9654 "
        "(NCCL's figure "
        "for it), or --cpu-link-rate R, e.g. 10GB/s");
  // Each value given drops its line, whatever the others.
  hints.nic_gbit_s = 400;
  hints.cpu_link_GBps = 10;
  t = node_type_infer(*f, hints);
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().find("2 values") != std::string::npos);
  CHECK(t.error().find("--gpu-model") != std::string::npos);
  CHECK(t.error().find("--pcie-rate") != std::string::npos);
  CHECK(t.error().find("--nic-rate") == std::string::npos);
  CHECK(t.error().find("--cpu-link-rate") == std::string::npos);
  hints.gpu_model = "H100-SXM5";
  t = node_type_infer(*f, hints);
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().find(
            "leaves out a value a node type needs; give it with its option (or --base PRESET to take it from") !=
        std::string::npos);
  CHECK(t.error().ends_with(
      ":\n  the PCIe rate (the file gives no link speed): --pcie-rate R per direction, e.g. 31.5GB/s (Gen4 x16), "
      "63GB/s (Gen5 x16)"));
  hints.pcie_GBps = 63;
  t = node_type_infer(*f, hints);
  REQUIRE_MESSAGE(t.ok(), (t ? "" : t.error()));
  CHECK(t->type.nvlink_GBps == 100);  // two GPUs bridged by 4 links: one bond, exactly a switch of two
  CHECK(t->type.cpus == 2);
  CHECK(t->type.nic_switch.empty());
  // A --base fills all of it.
  const NodeType base = *node_type_named("dgx-h100");
  NodeHints only_base;
  only_base.base = &base;
  CHECK(node_type_infer(*f, only_base).ok());
}

TEST_CASE("nvidia-smi: a GPU model of unknown NVLink generation adds the NVLink rate to the list") {
  Result<NodeFacts> f = nvidia_smi_topo_parse(kTwoGpus, "two.txt");
  REQUIRE(f.ok());
  NodeHints hints;
  hints.gpu_model = "RTX-6000-Ada";
  hints.pcie_GBps = 31.5;
  Result<NodeTypeInference> t = node_type_infer(*f, hints);
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().find("leaves out 3 values") != std::string::npos);
  CHECK(t.error().find(
            "\n  one NVLink's rate (4 NVLinks per GPU, and the NVLink generation of 'RTX-6000-Ada' is unknown): "
            "--nvlink-rate R, one link in one direction: 25GB/s for NVLink 2 to 4 (V100 to H200), 50GB/s for NVLink 5 "
            "(B200)") != std::string::npos);
  CHECK(t.error().find("\n  the NIC rate: ") != std::string::npos);
  CHECK(t.error().find("\n  the link between the 2 NUMA nodes") != std::string::npos);
  // Without the model, the model is asked for and not the rate it would give.
  hints.gpu_model.clear();
  t = node_type_infer(*f, hints);
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().find("--gpu-model") != std::string::npos);
  CHECK(t.error().find("--nvlink-rate") == std::string::npos);
}

TEST_CASE("nvidia-smi: malformed matrices get one clear error each") {
  CHECK(parse_error("") == "topo.txt: empty: expected the output of `nvidia-smi topo -m`");
  CHECK(parse_error("hello world\n").find("topo.txt:1: expected the header") == 0);
  // A row with a column missing.
  CHECK(parse_error("\tGPU0\tGPU1\nGPU0\t X \tNV4\nGPU1\tNV4\n") == "topo.txt:3: GPU1: 1 entries for 2 columns");
  // An unknown legend token.
  CHECK(parse_error("\tGPU0\tGPU1\nGPU0\t X \tNVX\nGPU1\tNV4\t X \n") ==
        "topo.txt:2: GPU0: 'NVX' in column GPU1 is not a link (expected X, NV#, PIX, PXB, PHB, NODE, SYS or SOC)");
  CHECK(parse_error("\tGPU0\tGPU1\nGPU0\t X \tNV4\nGPU1\tNV2\t X \n").find("symmetric") != std::string::npos);
  CHECK(parse_error("\tGPU0\tGPU1\nGPU0\tNV4\t X \nGPU1\tNV4\t X \n").find("X marks a device's own column") !=
        std::string::npos);
  CHECK(parse_error("\tGPU0\tGPU1\nGPU0\t X \tNV4\n\nLegend:\n") ==
        "topo.txt: no row for column GPU1 (the matrix is cut short?)");
  CHECK(parse_error("\tGPU0\tGPU0\n").find("appears twice") != std::string::npos);
  CHECK(parse_error("\tGPU0\tGPU1\nGPU0\t X \tSYS\nGPU0\t X \tSYS\n").find("row 'GPU0' appears twice") !=
        std::string::npos);
  CHECK(parse_error("\tGPU0\tGPU1\nGPU0\t X \tSYS\nGPU9\tSYS\t X \n")
            .find("row 'GPU9' is not one of the header's columns") != std::string::npos);
  CHECK(parse_error("\tGPU0\tCPU Affinity\tFOO\n").find("unknown column 'FOO'") != std::string::npos);
  CHECK(parse_error("\tGPU0\tNUMA Affinity\nGPU0\t X \tzero\n").find("NUMA Affinity 'zero'") != std::string::npos);
}

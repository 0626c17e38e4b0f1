#include <doctest/doctest.h>

#include "tests/topology/formats/node_samples.h"
#include "topology/formats/hwloc.h"

using namespace topoplan;

namespace {

HwlocHost sample(const std::string& name) {
  Result<HwlocHost> h = hwloc_xml(test::read_file(test::sample_path(name)), name);
  REQUIRE_MESSAGE(h.ok(), (h ? "" : h.error()));
  return *h;
}

}  // namespace

TEST_CASE("hwloc: DGX-2H: 16 V100 behind PLX switches, NVLink bandwidth from NVML" *
          doctest::skip(test::reference_absent())) {
  const HwlocHost h = sample("hwloc-nvidia-dgx2h-v100-nvswitch.xml");
  const NodeFacts& f = h.facts;
  REQUIRE(f.gpus.size() == 16);
  CHECK(f.nics.empty());  // the sample keeps no NICs
  CHECK(h.numa_nodes == 2);
  CHECK(f.cores == 4);  // trimmed to 4 PUs
  CHECK(f.cpu_vendor == "Intel");
  CHECK(f.nvlinks_listed);
  for (const NodeFacts::Gpu& g : f.gpus)
    CHECK(g.nvswitch_GBps == 150);                       // 6 NVLink2 x 25 GB/s, one switch of PCI class 0
  CHECK(f.gpus[0].pcie_GBps == doctest::Approx(15.75));  // Gen3 x16
  NodeHints hints;
  hints.gpu_model = "V100-SXM3";
  Result<NodeTypeInference> t = node_type_infer(f, hints);
  REQUIRE_MESSAGE(t.ok(), (t ? "" : t.error()));
  CHECK(t->type.nvlink_GBps == 150);
  CHECK(t->type.gpus_per_pcie_switch == 4);  // four GPUs under each root port's PLX tree
  CHECK(t->type.cpus == 2);
  CHECK(t->type.cores_per_cpu == 2);
  // Without --gpu-model, hwloc's PCI device 0x1db8 names it.
  Result<NodeTypeInference> by_id = node_type_infer(f, NodeHints{});
  REQUIRE_MESSAGE(by_id.ok(), (by_id ? "" : by_id.error()));
  CHECK(by_id->type.gpu_model == "V100-SXM3");
}

TEST_CASE("hwloc: an old two-socket server: an InfiniBand HCA of PCI class 0x0c06, Ethernet beside it" *
          doctest::skip(test::reference_absent())) {
  const HwlocHost h = sample("hwloc-2socket-tesla-mlx4-ib.xml");
  CHECK(h.facts.gpus.size() == 3);
  REQUIRE(h.facts.nics.size() == 1);
  CHECK(h.facts.nics[0].name == "mlx4_0");
  CHECK(h.other_nics == std::vector<std::string>{"eth0", "eth1"});
  CHECK(h.numa_nodes == 2);
  CHECK(h.facts.cores == 12);
  CHECK_FALSE(h.facts.nvlinks_listed);
  // Three GPUs over two sockets are no equal blocks: refused with the reason.
  Result<NodeTypeInference> t = test::infer_with_base(h.facts, "pcie-l40s");
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().find("equal, ordered blocks") != std::string::npos);
}

TEST_CASE("hwloc: this machine loads, with or without GPUs") {
  Result<HwlocHost> h = hwloc_local();
  REQUIRE_MESSAGE(h.ok(), (h ? "" : h.error()));
  CHECK(h->numa_nodes >= 1);
  CHECK(h->facts.cores >= 1);
}

TEST_CASE("hwloc: a truncated or foreign XML file is refused with its name") {
  Result<HwlocHost> h =
      hwloc_xml("<?xml version=\"1.0\"?>\n<topology version=\"2.0\">\n  <object type=\"Machine\"", "cut.xml");
  REQUIRE_FALSE(h.ok());
  CHECK(h.error().find("cut.xml: not XML: ") == 0);
  h = hwloc_xml("<system version=\"1\"/>", "nccl.xml");
  REQUIRE_FALSE(h.ok());
  CHECK(h.error() == "nccl.xml: expected <topology> (an `lstopo --of xml` export)");
  // hwloc itself crashes on an object without one of its sets (a fuzz finding): refused first.
  h = hwloc_xml(
      "<topology version=\"2.0\"><object type=\"Machine\" os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\" "
      "allowed_cpuset=\"0x1\" nodeset=\"0x1\" allowed_nodeset=\"0x1\" gp_index=\"1\"/></topology>",
      "damaged.xml");
  REQUIRE_FALSE(h.ok());
  CHECK(h.error() ==
        "damaged.xml: object Machine (gp_index 1) has no complete_nodeset: not an `lstopo --of xml` export, or a "
        "damaged one");
}

TEST_CASE("hwloc: the fuzz seed: a GPU and an RDMA NIC under one switch, hwloc's float link speed kept to 10 MB/s") {
  const std::string text = test::read_file(test::source_dir() / "fuzz/corpus/hwloc/one-gpu-one-nic.xml");
  Result<HwlocHost> h = hwloc_xml(text, "seed.xml");
  REQUIRE_MESSAGE(h.ok(), (h ? "" : h.error()));
  const NodeFacts& f = h->facts;
  REQUIRE(f.gpus.size() == 1);
  REQUIRE(f.nics.size() == 1);
  CHECK(f.gpus[0].pcie_switch == f.nics[0].pcie_switch);
  CHECK(f.gpus[0].pcie_GBps == 31.51);  // 31.507692 as a float: no 31.510000228881836
  CHECK(f.gpus[0].pci_device == 0x2330);
  CHECK(f.nics[0].rdma == "mlx5_0");
}

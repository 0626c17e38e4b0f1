#include <doctest/doctest.h>

#include <cstdio>

#include "tests/topology/formats/node_samples.h"
#include "topology/fabric_plan.h"
#include "topology/formats/nccl_xml.h"
#include "topology/formats/node_type_json.h"

using namespace topoplan;

namespace {

NodeFacts sample(const std::string& name) { return test::node_sample(nccl_topo_xml_parse, name); }

std::string parse_error(const std::string& text) {
  Result<NodeFacts> f = nccl_topo_xml_parse(text, "topo.xml");
  REQUIRE_FALSE(f.ok());
  return f.error();
}

}  // namespace

TEST_CASE("nccl xml: IBM's full dump: NVSwitch links, NIC rates, CUDA order" *
          doctest::skip(test::reference_absent())) {
  const NodeFacts f = sample("nccl-ibm-gx3d-h100-dump.xml");
  REQUIRE(f.gpus.size() == 8);
  CHECK(f.nics.size() == 8);
  CHECK(f.gpus[0].nvswitch_links == 18);  // 5 + 5 + 4 + 4 to four NVSwitches
  CHECK(f.gpus[0].sm == 90);
  CHECK(f.gpus[0].pcie_GBps == 0);  // link_width 0, as VMs write it
  CHECK(f.nics[0].gbit_s == 200);   // speed="200000" Mbit/s
  CHECK(f.cpu_vendor == "Intel");
  Result<NodeTypeInference> t = test::infer_with_base(f, "dgx-h100");
  REQUIRE(t.ok());
  CHECK(t->type.nvlink_GBps == 450);
  CHECK(t->type.nic_gbit_s == 200);
  CHECK(t->type.cpus == 2);
  CHECK(t->type.nic_switch.empty());
  CHECK(t->type.nic_names.front() == "mlx5_7");  // beside GPU 0 in the file
  CHECK(t->type.nic_busids.front() == "0000:a3:00.0");
  // The dump's PCI device 0x2330 names the GPU over --base's.
  CHECK(t->type.gpu_model == "H100-SXM5");
  Result<NodeTypeInference> a100 = test::infer_with_base(f, "dgx-a100");
  REQUIRE(a100.ok());
  CHECK(a100->type.gpu_model == "H100-SXM5");
}

TEST_CASE("nccl xml: AWS p4d: two GPUs and one EFA NIC per switch, NVLinks left to NCCL" *
          doctest::skip(test::reference_absent())) {
  const NodeFacts f = sample("nccl-aws-p4d-24xl-a100-topo.xml");
  CHECK(f.gpus.size() == 8);
  CHECK(f.nics.size() == 4);
  CHECK_FALSE(f.nvlinks_listed);
  CHECK(f.gpus[0].name == "0000:10:1c.0");               // PCI bus order
  CHECK(f.gpus[0].pcie_GBps == doctest::Approx(15.75));  // 8 GT/s x16, 128b/130b
  const NodeType t = test::inferred(f, "dgx-a100");
  CHECK(t.gpus_per_pcie_switch == 2);
  CHECK(t.nvlink_GBps == 300);  // from --base, said so in the summary
  CHECK(t.cpus == 2);
  CHECK(test::inferred(f, "dgx-h100").gpu_model == "A100-SXM4");  // PCI device 0x20b0
  NodeHints none;
  none.gpu_model = "A100-SXM4";
  Result<NodeTypeInference> bare = node_type_infer(f, none);
  REQUIRE_FALSE(bare.ok());
  CHECK(bare.error().find("--nvlinks N") != std::string::npos);
}

TEST_CASE("nccl xml: Azure NDv4: four AMD NUMA nodes, bare PCI entries" * doctest::skip(test::reference_absent())) {
  const NodeFacts f = sample("nccl-azure-ndv4-a100-topo.xml");
  CHECK(f.gpus.size() == 8);
  CHECK(f.nics.size() == 8);
  CHECK(f.cpu_vendor == "AMD");
  const NodeType t = test::inferred(f, "dgx-a100");
  CHECK(t.cpus == 4);
  CHECK(t.cpu_model == "EPYC-7742");      // the base's, an AMD as the file says
  CHECK(t.cpu_link_GBps == 0);            // not given: the model's
  CHECK(node_type_socket_GBps(t) == 16);  // NCCL's AMD figure
  CHECK(t.gpus_per_pcie_switch == 2);
  CHECK(t.pcie_GBps == doctest::Approx(31.51));  // "16 GT/s" x16
}

TEST_CASE("nccl xml: Azure NDv5: one GPU and one NIC per switch" * doctest::skip(test::reference_absent())) {
  const NodeType t = test::inferred(sample("nccl-azure-ndv5-h100-topo.xml"), "dgx-h100");
  CHECK(t.gpus == 8);
  CHECK(t.nics == 8);
  CHECK(t.gpus_per_pcie_switch == 1);
  CHECK(t.pcie_GBps == doctest::Approx(63.02));
}

TEST_CASE("nccl xml: malformed files get one clear error each") {
  CHECK(parse_error("<system version=\"1\">\n  <cpu numaid=\"0\">\n    <pci busid=\"0000:01:00.0\"")
            .find("topo.xml:3: not well-formed XML") == 0);
  CHECK(parse_error("<topology/>") ==
        "topo.xml: expected NCCL's topology XML: a <system version=\"1\"> element at the top");
  CHECK(parse_error("<system>\n<cpu numaid=\"zero\"/>\n</system>") ==
        "topo.xml:2: <cpu> numaid 'zero': expected a whole number");
  CHECK(parse_error("<system><cpu numaid=\"0\">\n<pci busid=\"0000:01:00.0\" class=\"0x030200\" link_speed=\"fast\" "
                    "link_width=\"16\"/>"
                    "</cpu></system>") == "topo.xml:2: <pci> link_speed 'fast': expected e.g. '16.0 GT/s PCIe'");
  CHECK(parse_error("<system><cpu numaid=\"0\">\n<pci class=\"0x030200\"/></cpu></system>") ==
        "topo.xml:2: <pci> has no busid");
  CHECK(parse_error("<system><cpu numaid=\"0\"><pci busid=\"0000:01:00.0\" class=\"0x030200\"><gpu dev=\"0\">"
                    "<nvlink target=\"0000:09:00.0\" count=\"2\" tclass=\"0x030200\"/></gpu></pci></cpu></system>") ==
        "topo.xml: an <nvlink> targets GPU 0000:09:00.0, which the file does not list");
  CHECK(parse_error("<system><cpu numaid=\"0\"><pci busid=\"0000:01:00.0\" class=\"0x030200\"><gpu dev=\"0\">\n"
                    "<nvlink target=\"cpu\" count=\"2\" tclass=\"0x060400\"/></gpu></pci></cpu></system>")
            .find("topo.xml:2: <nvlink> to a device of class '0x060400'") == 0);
}

TEST_CASE("nccl xml: a bus ID twice is refused; more NICs than switch ports build on larger switches") {
  // One GPU and `nics` NICs, each NIC's bus ID from `busid(i)`.
  auto file = [](int nics, auto busid) {
    std::string x =
        "<system version=\"1\"><cpu numaid=\"0\">"
        "<pci busid=\"0000:01:00.0\" class=\"0x030200\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\"/>";
    for (int i = 0; i < nics; ++i)
      x += "<pci busid=\"" + busid(i) + "\" class=\"0x020700\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\"/>";
    return x + "</cpu></system>";
  };
  auto hex = [](int i) {
    char b[16];
    std::snprintf(b, sizeof b, "0001:%02x:00.0", i);
    return std::string(b);
  };
  Result<NodeFacts> twice = nccl_topo_xml_parse(file(2, [](int) { return std::string("0000:02:00.0"); }), "t.xml");
  REQUIRE(twice.ok());
  Result<NodeTypeInference> refused = test::infer_with_base(*twice, "dgx-h100");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error() ==
        "t.xml (NCCL topology XML): PCI bus ID 0000:02:00.0 appears twice (NIC 0000:02:00.0, NIC "
        "0000:02:00.0): a bus ID names one device");
  Result<NodeFacts> gpu_as_nic = nccl_topo_xml_parse(file(1, [](int) { return std::string("0000:01:00.0"); }), "t.xml");
  REQUIRE(gpu_as_nic.ok());
  CHECK(test::infer_with_base(*gpu_as_nic, "dgx-h100").error().find("(GPU 0000:01:00.0, NIC") != std::string::npos);

  // 72 rails need 72 leaf ports on each spine, and twice that where half go up to a core tier.
  const NodeType wide = test::inferred(*nccl_topo_xml_parse(file(72, hex), "t.xml"), "dgx-h100");
  REQUIRE(wide.nics == 72);
  CHECK(fabric_default(wide).switch_radix == 256);
  for (int nodes : {1, 2, 300}) {
    CAPTURE(nodes);
    const ClusterSpec spec{"wide", wide, nodes, fabric_default(wide), {}, {}};
    Result<FabricPlan> plan = fabric_plan(spec);
    CHECK_MESSAGE(plan.ok(), (plan ? "" : plan.error()));
  }
  CHECK(fabric_default(*node_type_named("dgx-h100")).switch_radix == 64);
}

TEST_CASE("nccl xml: a node type written as NCCL_TOPO_FILE reads back the same" *
          doctest::skip(test::reference_absent())) {
  // Imported from Azure's file, it keeps the bus IDs NCCL matches devices by.
  const NodeType ndv4 = test::inferred(sample("nccl-azure-ndv4-a100-topo.xml"), "dgx-a100");
  const std::string written = nccl_topo_xml_write(ndv4);
  CHECK(written.find("made up") == std::string::npos);
  CHECK(written.find(
            "<pci busid=\"0001:00:00.0\" class=\"0x030200\" link_speed=\"16.0 GT/s PCIe\" link_width=\"16\" />") !=
        std::string::npos);
  Result<NodeFacts> back = nccl_topo_xml_parse(written, "written.xml");
  REQUIRE_MESSAGE(back.ok(), (back ? "" : back.error()));
  const NodeType again = test::inferred(*back, "dgx-a100");
  CHECK(node_type_to_json(again).dump() == node_type_to_json(ndv4).dump());
}

TEST_CASE("nccl xml: every preset but Grace's writes a file that reads back to its shape") {
  for (const NodeType& preset : node_types()) {
    if (preset.c2c_GBps > 0) continue;
    CAPTURE(preset.name);
    const std::string written = nccl_topo_xml_write(preset);
    CHECK(written.find("made up") != std::string::npos);  // presets have no bus IDs
    Result<NodeFacts> back = nccl_topo_xml_parse(written, "written.xml");
    REQUIRE_MESSAGE(back.ok(), (back ? "" : back.error()));
    NodeHints hints;
    hints.base = &preset;
    Result<NodeTypeInference> t = node_type_infer(*back, hints);
    REQUIRE_MESSAGE(t.ok(), (t ? "" : t.error()));
    CHECK(t->type.gpus == preset.gpus);
    CHECK(t->type.nics == preset.nics);
    CHECK(t->type.gpus_per_pcie_switch == preset.gpus_per_pcie_switch);
    CHECK(t->type.cpus == preset.cpus);
    CHECK(t->type.nic_switch == preset.nic_switch);
    CHECK(t->type.pcie_GBps == doctest::Approx(preset.pcie_GBps).epsilon(0.01));
    CHECK(t->type.nvlink_GBps == preset.nvlink_GBps);  // NVLinks come from the preset: the file leaves them to NCCL
  }
}

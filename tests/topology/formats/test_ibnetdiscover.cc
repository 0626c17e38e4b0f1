#include "topology/formats/ibnetdiscover.h"

#include <doctest/doctest.h>

#include <map>

#include "tests/support.h"
#include "topology/formats/node_import.h"

using namespace topoplan;

namespace {

std::string sample(const std::string& name) {
  return test::read_file(test::source_dir() / "tests" / "samples" / "ibnetdiscover" / name);
}

Result<ClusterImport> imported(const std::string& text, const std::string& type = "dgx-h100") {
  ClusterImportOptions options;
  options.type = *node_type_named(type);
  return ibnetdiscover_import(text, "fabric.txt", options);
}

ClusterImport built(const std::string& text, const std::string& type = "dgx-h100") {
  Result<ClusterImport> b = imported(text, type);
  REQUIRE_MESSAGE(b.ok(), (b ? "" : b.error()));
  return std::move(*b);
}

// Rate -> links between the two named kinds of device (NIC to switch, or switch to switch), each cable once.
std::map<double, int> link_rates(const Cluster& c, bool switch_to_switch) {
  std::map<double, int> n;
  for (VertexId v = 0; v < c.num_devices(); ++v)
    for (EdgeId e : c.out_edges(v)) {
      const Device &a = c.device(v), &b = c.device(c.target(e));
      if (switch_to_switch ? a.kind == DeviceKind::switch_ && b.kind == DeviceKind::switch_ && v < c.target(e)
                           : a.kind == DeviceKind::nic && b.kind == DeviceKind::switch_)
        ++n[c.link(e).bw_GBps];
    }
  return n;
}

// Two 4xNDR leaves under a spine, the spine under a core over 4xHDR: the shapes of the samples'
// lines with three tiers, two HCAs on gpu01 and one on gpu02.
const char* kThreeTiers = R"(# Topology file: three tiers
vendid=0x2c9
switchguid=0xa
Switch	64 "S-000000000000000a"		# "leaf-a" enhanced port 0 lid 1 lmc 0
[1]	"H-00000000000000c1"[1](c1) 		# "gpu01 mlx5_0" lid 11 4xNDR
[2]	"H-00000000000000c3"[1](c3) 		# "gpu02 mlx5_0" lid 13 4xNDR
[33]	"S-000000000000000c"[1]		# "spine" lid 3 4xNDR

switchguid=0xb
Switch	64 "S-000000000000000b"		# "leaf-b" enhanced port 0 lid 2 lmc 0
[1]	"H-00000000000000c2"[1](c2) 		# "gpu01 mlx5_1" lid 12 4xNDR
[33]	"S-000000000000000c"[2]		# "spine" lid 3 4xNDR

switchguid=0xc
Switch	64 "S-000000000000000c"		# "spine" enhanced port 0 lid 3 lmc 0
[1]	"S-000000000000000a"[33]		# "leaf-a" lid 1 4xNDR
[2]	"S-000000000000000b"[33]		# "leaf-b" lid 2 4xNDR
[40]	"S-000000000000000d"[1]		# "core" lid 4 4xHDR

switchguid=0xd
Switch	40 "S-000000000000000d"		# "core" enhanced port 0 lid 4 lmc 0
[1]	"S-000000000000000c"[40]		# "spine" lid 3 4xHDR

caguid=0xc1
Ca	1 "H-00000000000000c1"		# "gpu01 mlx5_0"
[1](c1) 	"S-000000000000000a"[1]		# lid 11 lmc 0 "leaf-a" lid 1 4xNDR

caguid=0xc2
Ca	1 "H-00000000000000c2"		# "gpu01 mlx5_1"
[1](c2) 	"S-000000000000000b"[1]		# lid 12 lmc 0 "leaf-b" lid 2 4xNDR

caguid=0xc3
Ca	1 "H-00000000000000c3"		# "gpu02 mlx5_0"
[1](c3) 	"S-000000000000000a"[2]		# lid 13 lmc 0 "leaf-a" lid 1 4xNDR
)";

}  // namespace

TEST_CASE("ibnetdiscover: a real QDR switch with five hosts, told by its content") {
  const std::string text = sample("qdr-1switch-5hosts.txt");
  const ImportFormat* format = import_format_of(text);
  REQUIRE(format);
  CHECK(std::string(format->name) == "ibnetdiscover");
  const ClusterImport b = built(text, "pcie-l40s");
  const Cluster& c = b.cluster;
  REQUIRE(c.hosts().size() == 5);
  CHECK(c.hosts()[0].name == "ip-160");  // the first Ca block's host
  CHECK(switches_per_tier(c) == std::map<int, int>{{1, 1}});
  // 4xQDR: 4 lanes of 8 Gbit/s of data, 4 GB/s; every NIC of a one-HCA host shares its one cable's switch.
  const auto nics = static_cast<int>(5 * node_type_named("pcie-l40s")->nics);
  CHECK(link_rates(c, false) == std::map<double, int>{{4.0, nics}});
  REQUIRE(b.notes.size() == 1);
  CHECK(b.notes[0].find("5 hosts with fewer cabled HCA ports than pcie-l40s's") == 0);
}

TEST_CASE("ibnetdiscover: ibsim's two switches, two cables between them, an HCA on its second port") {
  const ClusterImport b = built(sample("ibsim-2switch-2hcas.txt"));
  const Cluster& c = b.cluster;
  REQUIRE(c.hosts().size() == 2);
  CHECK(c.hosts()[1].name == "Hca1");
  // Switch2 holds no HCA: a tier above Switch1, which does.
  CHECK(switches_per_tier(c) == std::map<int, int>{{1, 1}, {2, 1}});
  CHECK(link_rates(c, true) == std::map<double, int>{{1.0, 2}});  // 4xSDR, one link per cable listed from both ends
}

TEST_CASE("ibnetdiscover: three tiers, link rates from width x speed, several HCAs on one host") {
  const ClusterImport b = built(kThreeTiers, "dgx-h100");
  const Cluster& c = b.cluster;
  REQUIRE(c.hosts().size() == 2);
  CHECK(c.hosts()[0].name == "gpu01");
  CHECK(switches_per_tier(c) == std::map<int, int>{{1, 2}, {2, 1}, {3, 1}});
  CHECK(link_rates(c, true) == std::map<double, int>{{25.0, 1}, {50.0, 2}});  // 4xHDR 200 Gb/s, 4xNDR 400 Gb/s
  // gpu01's NICs alternate over its two HCAs (mlx5_0 on leaf-a, mlx5_1 on leaf-b), as rails do.
  const Host& gpu01 = c.hosts()[0];
  std::map<std::string, int> leaf_nics;
  for (VertexId nic : gpu01.nics)
    for (EdgeId e : c.out_edges(nic))
      if (c.device(c.target(e)).kind == DeviceKind::switch_) ++leaf_nics[c.device(c.target(e)).name];
  CHECK(leaf_nics == std::map<std::string, int>{{"S-000000000000000a", 4}, {"S-000000000000000b", 4}});
  CHECK(c.device(c.hosts()[0].nics[0]).kind == DeviceKind::nic);
}

TEST_CASE("ibnetdiscover: malformed input names the file, the line and what was expected") {
  auto error = [](const std::string& text) {
    Result<ClusterImport> r = imported(text);
    REQUIRE_FALSE(r);
    return r.error();
  };
  const std::string sw = "Switch 36 \"S-01\" # \"leaf\" base port 0 lid 1 lmc 0\n";
  const std::string ca = "Ca 1 \"H-02\" # \"node1 mlx5_0\"\n[1](2) \"S-01\"[1] # lid 2 lmc 0 \"leaf\" lid 1 4xHDR\n";
  CHECK(error(sw + "[1] S-02[1] # x 4xHDR\n" + ca) ==
        "fabric.txt:2: expected a port line '[N] \"PEER\"[M] # ... 4xHDR', got '[1] S-02[1] # x 4xHDR'");
  CHECK(error(sw + "[1] \"H-02\"[1](2) # \"node1 mlx5_0\" lid 2 3xHDR\n" + ca) ==
        "fabric.txt:2: \"S-01\"[1]: unknown link width '3x' (expected 1x, 2x, 4x, 8x or 12x)");
  CHECK(error(sw + "[1] \"H-02\"[1](2) # \"node1 mlx5_0\" lid 2 4xGDR\n" + ca)
            .find("fabric.txt:2: \"S-01\"[1]: unknown link speed 'GDR' (expected one of SDR,") == 0);
  CHECK(error(sw + "[1] \"H-02\"[1](2) # \"node1 mlx5_0\" lid 2\n" + ca) ==
        "fabric.txt:2: \"S-01\"[1]: expected the link's width and speed at the end, e.g. 4xHDR, got '2'");
  // A block cut off after its node line, and a file cut off before the block its ports name.
  CHECK(error(ca + "\nvendid=0x2c9\n" + sw) ==
        "fabric.txt:5: \"S-01\" has no port lines: a truncated block? (every node ibnetdiscover reaches has a cabled "
        "port)");
  CHECK(error(ca) == "fabric.txt:2: names \"S-01\", which no Switch or Ca block describes (a truncated file?)");
  // One port cabled to two places.
  CHECK(
      error(sw + "[1] \"H-03\"[1](3) # \"node2 mlx5_0\" lid 3 4xHDR\n" + ca +
            "Ca 1 \"H-03\" # \"node2 mlx5_0\"\n[1](3) \"S-01\"[2] # lid 3 4xHDR\n") ==
      "fabric.txt:2: \"S-01\"[1] is cabled to \"H-03\"[1], which line 6 cables to \"S-01\"[2]: a port is cabled once");
  CHECK(error(sw +
              "[1] \"H-02\"[1](2) # \"node1 mlx5_0\" lid 2 4xHDR\n[1] \"H-02\"[1](2) # \"node1 mlx5_0\" lid 2 4xHDR\n" +
              ca) == "fabric.txt:3: \"S-01\"[1] is listed twice (first on line 2)");
  CHECK(error("Switch 8 \"S-01\" # \"a\"\n[1] \"S-02\"[1] # \"b\" lid 2 4xEDR\nSwitch 8 \"S-02\" # \"b\"\n[1] "
              "\"S-01\"[1] # \"a\" lid 1 4xEDR\n") ==
        "fabric.txt: no Ca blocks: no hosts to place (ibnetdiscover lists HCAs as Ca blocks)");
  CHECK(error(sw + "[40] \"H-02\"[1](2) # \"n\" lid 2 4xHDR\n" + ca) ==
        "fabric.txt:2: port 40 of \"S-01\", which has ports 1 to 36");
  CHECK(error("[1] \"S-01\"[1] # lid 2 4xHDR\n") ==
        "fabric.txt:1: a port line outside a node block (expected a Switch or Ca line before it)");
  CHECK(error("Switch x \"S-01\"\n").find("fabric.txt:1: expected 'Switch PORTS \"S-GUID\" # \"description\"'") == 0);
  CHECK(error("hello world\n") ==
        "fabric.txt:1: expected a node line (Switch, Ca), a port line ([N] ...) or key=value, got 'hello world'");
  // Hosts past the GPU limit are refused before any is built.
  std::string many = "Switch 2000 \"S-01\" # \"leaf\"\n[1] \"H-0\"[1] # \"n0 mlx5_0\" lid 2 4xHDR\n";
  for (int h = 0; h < 1100; ++h)
    many += "Ca 1 \"H-" + std::to_string(h) + "\" # \"n" + std::to_string(h) + " mlx5_0\"\n[1] \"S-01\"[" +
            std::to_string(h + 1) + "] # 4xHDR\n";
  ClusterImportOptions wide;
  wide.type = *node_type_named("dgx-h100");
  wide.type.gpus = 1024;
  CHECK(ibnetdiscover_import(many, "f.txt", wide).error() ==
        "f.txt: 1,100 hosts of 1024 GPUs are more than the limit of 1,048,576 GPUs");
  ClusterImportOptions steep;
  steep.type = *node_type_named("dgx-h100");
  steep.oversubscription = 2;
  CHECK(ibnetdiscover_import(kThreeTiers, "f.txt", steep)
            .error()
            .find("--oversubscription is for files without port counts") != std::string::npos);
}

#include <doctest/doctest.h>

#include <map>

#include "tests/support.h"
#include "topology/formats/node_import.h"
#include "topology/formats/slurm_topology.h"
#include "topology/load.h"

using namespace topoplan;

namespace {

SlurmTopology parsed(const std::string& text, const std::string& where) {
  Result<SlurmTopology> t = slurm_topology_parse(text, where);
  REQUIRE_MESSAGE(t.ok(), (t ? "" : t.error()));
  return *t;
}

SlurmTopology sample(const std::string& name) { return parsed(test::read_file(test::sample_path(name)), name); }

ClusterImport built(const SlurmTopology& t, const std::string& type = "dgx-h100") {
  Result<ClusterImport> b = slurm_topology_build(t, *node_type_named(type), "test", 1, "topology.conf");
  REQUIRE_MESSAGE(b.ok(), (b ? "" : b.error()));
  return std::move(*b);
}

std::string parse_error(const std::string& text) {
  Result<SlurmTopology> t = slurm_topology_parse(text, "topology.conf");
  REQUIRE_FALSE(t.ok());
  return t.error();
}

}  // namespace

TEST_CASE("slurm topology: SchedMD's three-level tree" * doctest::skip(test::reference_absent())) {
  const SlurmTopology t = sample("slurm-topology-tree-3level.conf");
  CHECK(t.switches.size() == 23);
  const ClusterImport b = built(t);
  CHECK(b.cluster.hosts().size() == 400);
  CHECK(b.cluster.hosts().front().name == "peta10000");
  CHECK(switches_per_tier(b.cluster) == std::map<int, int>{{1, 20}, {2, 2}, {3, 1}});
  CHECK(b.notes.empty());
  // Every leaf's uplink carries what its 20 hosts' 8 NICs inject: non-blocking by default, as a
  // bundle of 160 ports at the NIC rate.
  const VertexId leaf = *b.cluster.find("leaf100"), group = *b.cluster.find("grp10");
  int ports = 0;
  for (EdgeId e : b.cluster.out_edges(leaf))
    if (b.cluster.target(e) == group) {
      CHECK(b.cluster.link(e).bw_GBps == 50);
      ++ports;
    }
  CHECK(ports == 20 * 8);
}

TEST_CASE("slurm topology: a SuperPOD's leaves without a spine line, one host twice" *
          doctest::skip(test::reference_absent())) {
  const ClusterImport b = built(sample("slurm-topology-tree-superpod-leaves.conf"));
  CHECK(b.cluster.hosts().size() == 79);  // circe-n051 under s2 and s4 counts once
  CHECK(switches_per_tier(b.cluster) == std::map<int, int>{{1, 5}, {2, 1}});
  REQUIRE(b.notes.size() == 2);
  CHECK(b.notes[0].find("root joins them") != std::string::npos);
  CHECK(b.notes[1].find("circe-n051") != std::string::npos);
}

TEST_CASE("slurm topology: blocks become leaves under one root" * doctest::skip(test::reference_absent())) {
  const SlurmTopology t = sample("slurm-topology-block.conf");
  CHECK(t.blocks.size() == 8);
  CHECK(t.block_sizes == std::vector<int>{4, 8, 16, 32, 64});
  const ClusterImport b = built(t);
  CHECK(b.cluster.hosts().size() == 32);
  CHECK(switches_per_tier(b.cluster) == std::map<int, int>{{1, 8}, {2, 1}});
}

namespace {

// Each host's NVLink domain by name, and the domains' sizes.
std::map<std::string, std::string> domain_of(const Cluster& c) {
  std::map<std::string, std::string> out;
  for (const Host& h : c.hosts()) out[h.name] = c.domains()[static_cast<size_t>(h.scaleup_domain)];
  return out;
}

std::string build_error(const std::string& text, const std::string& type = "gb200-nvl72") {
  Result<ClusterImport> b =
      slurm_topology_build(parsed(text, "topology.conf"), *node_type_named(type), "t", 1, "topology.conf");
  REQUIRE_FALSE(b.ok());
  return b.error();
}

}  // namespace

TEST_CASE("slurm topology: on rack-scale nodes each block is one NVLink domain" *
          doctest::skip(test::reference_absent())) {
  // SchedMD's block fixture: 8 blocks of 4. Racks by count would put node17-20 (b5) astride two
  // 18-tray racks; the blocks are the domains Slurm keeps jobs in.
  const ClusterImport b = built(sample("slurm-topology-block.conf"), "gb200-nvl72");
  const Cluster& c = b.cluster;
  CHECK(c.hosts().size() == 32);
  CHECK(c.domains().size() == 8);
  const std::map<std::string, std::string> domain = domain_of(c);
  for (const char* host : {"node17", "node18", "node19", "node20"}) CHECK(domain.at(host) == "b5");
  CHECK(domain.at("node16") == "b4");
  CHECK(domain.at("node21") == "b6");
  // One NVSwitch per block, joining its four trays' 16 GPUs and no others.
  const VertexId nvswitch = *c.find("b5/nvswitch");
  CHECK(c.device(nvswitch).kind == DeviceKind::nvswitch);
  int gpus = 0;
  for (EdgeId e : c.out_edges(nvswitch)) gpus += c.device(c.target(e)).kind == DeviceKind::gpu;
  CHECK(gpus == 16);
  REQUIRE(b.notes.size() == 3);  // and the root joining the blocks
  CHECK(b.notes[0] ==
        "each block is an NVLink domain (gb200-nvl72 racks) and a leaf switch (topology/block names no switches)");
  CHECK(b.notes[2] ==
        "8 of 8 blocks hold fewer hosts than a gb200-nvl72 rack's 18 (b1: 4): each is an NVLink domain of its own "
        "hosts, a rack "
        "whose other trays Slurm does not schedule");
  // Hosts of one NVLink domain per node type: the same file on DGX H100 gives every host its own.
  CHECK(built(sample("slurm-topology-block.conf")).cluster.domains().size() == 32);
}

TEST_CASE("slurm topology: NVL72 racks written as blocks read back as the same domains") {
  const Cluster preset = test::load_cluster("gb200-nvl72:2");
  const ClusterImport b = built(parsed(slurm_block_write(preset), "written.conf"), "gb200-nvl72");
  CHECK(domain_of(b.cluster).size() == 36);
  std::map<std::string, int> per_domain;
  for (const auto& [host, domain] : domain_of(b.cluster)) ++per_domain[domain];
  CHECK(per_domain == std::map<std::string, int>{{"r001", 18}, {"r002", 18}});
  for (const std::string& note : b.notes) CHECK(note.find("fewer hosts") == std::string::npos);  // whole racks
  CHECK(domain_of(b.cluster) == domain_of(preset));
}

TEST_CASE("slurm topology: a block no NVLink domain holds, a host in two, are errors that say what to change") {
  CHECK(build_error("BlockName=big Nodes=n[01-20]\n") ==
        "topology.conf:1: BlockName=big: 20 hosts, more than the 18 of one gb200-nvl72 NVLink domain: on rack-scale "
        "nodes a block is "
        "the domain (the rack) Slurm keeps a job in; split big into blocks of at most 18 hosts, one per rack, or give "
        "--node-type a "
        "node type whose hosts_per_domain is 20 or more");
  CHECK(build_error("BlockName=b1 Nodes=n[01-04]\nBlockName=b2 Nodes=n[04-07]\n") ==
        "topology.conf:2: BlockName=b2: host n04 is in b1 too (line 1): a host is in one NVLink domain");
  CHECK(build_error("BlockName=b1 Nodes=n[01-04],n02\n") ==
        "topology.conf:1: BlockName=b1: host n02 is named twice: a host is in one NVLink domain");
  // Without rack-scale hosts a block is a group of hosts on one leaf, of any size.
  CHECK(built(parsed("BlockName=big Nodes=n[01-20]\n", "t.conf")).cluster.hosts().size() == 20);
}

TEST_CASE("slurm topology: a tree on rack-scale nodes fills racks in file order, and says so" *
          doctest::skip(test::reference_absent())) {
  const ClusterImport b = built(sample("slurm-topology-tree-3level.conf"), "gb200-nvl72");
  CHECK(b.cluster.domains().size() == 23);  // 400 trays: 22 racks of 18 and one of 4
  REQUIRE(b.notes.size() == 1);
  CHECK(b.notes[0] ==
        "the tree names no NVLink domains: hosts fill gb200-nvl72 racks of 18 in the order the file names them (the "
        "last holds 4); "
        "Slurm's block topology (BlockName lines, or a block topology in topology.yaml) names the real ones");
}

TEST_CASE("slurm topology: block sizes Slurm's block plugin refuses are refused, with the line") {
  CHECK(parse_error("BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-8]\nBlockSizes=4,12\n") ==
        "topology.conf:3: BlockSizes: 12 is not 4 (the base block size, the first) times a power of two up to 32768: "
        "Slurm's block "
        "plugin joins 2, 4, 8 ... base blocks into larger ones");
  CHECK(parse_error("BlockSizes=4,6\nBlockName=b1 Nodes=n[1-4]\n")
            .starts_with("topology.conf:1: BlockSizes: 6 is not 4 "));
  CHECK(parse_error("BlockName=b1 Nodes=n[1-4]\nBlockSizes=4,262144\n")
            .starts_with("topology.conf:2: BlockSizes: 262144 is not 4 "));
  CHECK(parse_error("BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-6]\nBlockSizes=4,8\n") ==
        "topology.conf:2: BlockName=b2: 2 hosts, fewer than the base block size 4 (BlockSizes' first): Slurm's block "
        "plugin refuses a "
        "smaller block");
  CHECK(parse_error("BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-6]\n") ==
        "topology.conf:2: BlockName=b2: 2 hosts, fewer than the base block size 4 (the first block's, as no BlockSizes "
        "are given): "
        "Slurm's block plugin refuses a smaller block");
  CHECK(parse_error("BlockName=b1 Nodes=n[1-4]\nBlockSizes=4\nBlockSizes=4,8\n") ==
        "topology.conf:3: BlockSizes: already given on line 2");
  CHECK(parse_error("SwitchName=s0 Nodes=n[1-4]\nBlockSizes=4\n") ==
        "topology.conf:2: BlockSizes: only with BlockName lines (Slurm's block plugin); SwitchName lines are the tree "
        "plugin's");
  // A block larger than the base is Slurm's to use in part.
  CHECK(parsed("BlockName=b1 Nodes=n[1-6]\nBlockName=b2 Nodes=n[7-10]\nBlockSizes=4,16\n", "t").blocks.size() == 2);
}

TEST_CASE("slurm topology: a preset's tree written with each host under one leaf, and read back") {
  // Slurm counts a host listed under several leaves as under all of them, so `--switches=1` could
  // never hold: a unit's rail leaves are written as one switch (scripts/slurm-test runs Slurm on it).
  const Cluster preset = test::load_cluster("dgx-h100:64");
  const std::string tree = slurm_tree_write(preset);
  CHECK(tree.find("SwitchName=leaf0-7 Nodes=h[001-032]\n") != std::string::npos);
  CHECK(tree.find("SwitchName=spine0 Switches=leaf0-7,leaf8-15\n") != std::string::npos);
  const SlurmTopology t = parsed(tree, "written.conf");
  std::map<std::string, int> leaves_of_host;
  for (const SlurmTopology::Switch& sw : t.switches)
    for (const std::string& h : sw.nodes) ++leaves_of_host[h];
  CHECK(leaves_of_host.size() == 64);
  for (const auto& entry : leaves_of_host)
    CHECK_MESSAGE(entry.second == 1, entry.first);  // clang < 16: no bindings in CHECK
  // Read back: the same hosts, a leaf per unit under the same spines.
  const ClusterImport b = built(t);
  CHECK(b.cluster.hosts().size() == preset.hosts().size());
  CHECK(switches_per_tier(b.cluster) == std::map<int, int>{{1, 2}, {2, switches_per_tier(preset).at(2)}});
}

TEST_CASE("slurm topology: blocks are NVLink domains where they span hosts, else leaf groups") {
  const std::string racks = slurm_block_write(test::load_cluster("gb200-nvl72:4"));
  CHECK(racks.find("BlockName=r001 Nodes=h[001-018]\n") != std::string::npos);
  CHECK(racks.find("BlockSizes=18,36,72\n") != std::string::npos);
  const std::string groups = slurm_block_write(test::load_cluster("dgx-h100:64"));
  CHECK(groups.find("BlockName=b2 Nodes=h[033-064]\n") != std::string::npos);
  CHECK(groups.find("BlockSizes=32,64\n") != std::string::npos);
}

TEST_CASE("slurm topology: sites joined by DCI links get a root, so Slurm may span them") {
  // A tree cannot name the links between site routers; without a switch above both sites, Slurm
  // would treat them as two fabrics and never place a job across them.
  const Cluster two = test::load_cluster((test::data_dir() / "clusters" / "two-site-h100.json").string());
  const std::string tree = slurm_tree_write(two);
  CHECK(tree.find("SwitchName=root Switches=siteA/dci[0-7],siteB/dci[0-7]\n") != std::string::npos);
  const ClusterImport b = built(parsed(tree, "two-site.conf"));
  CHECK(b.cluster.hosts().size() == two.hosts().size());
  CHECK(b.notes.empty());  // every host under one leaf; no parts to join
  // One core reaching every host needs none.
  CHECK(slurm_tree_write(test::load_cluster("dgx-h100:64")).find("root") == std::string::npos);
}

TEST_CASE("slurm topology: malformed files get one clear error each") {
  CHECK(parse_error("") == "topology.conf: no SwitchName or BlockName lines");
  CHECK(parse_error("SwitchName=s1 Switches=s1\n") == "topology.conf:1: SwitchName=s1: Switches names s1 itself");
  CHECK(parse_error("SwitchName=s0 Nodes=h[05-01]\n").find("topology.conf:1: Nodes=h[05-01]: ") == 0);
  CHECK(parse_error("SwitchName=s0 Nodes=h1\nSwitchName=top Switches=s[0-1]\n") ==
        "topology.conf:2: SwitchName=top: Switches names s1, which no SwitchName line defines");
  CHECK(parse_error("SwitchName=a Switches=b\nSwitchName=b Switches=a\n").find("below itself") != std::string::npos);
  CHECK(parse_error("SwitchName=s0 Nodes=h1\nSwitchName=s0 Nodes=h2\n") ==
        "topology.conf:2: SwitchName=s0: already defined on line 1");
  CHECK(parse_error("SwitchName=s0 Nodes=h1\nBlockName=b1 Nodes=h2\n").find("one plugin's topology") !=
        std::string::npos);
  CHECK(parse_error("SwitchName=s0 Nodes=h1 Speed=100\n").find("unknown key 'speed'") != std::string::npos);
  CHECK(parse_error("BlockSizes=4,x\n") == "topology.conf:1: BlockSizes: 'x' is not a positive number of nodes");
  CHECK(parse_error("SwitchName s0\n") == "topology.conf:1: 'SwitchName': expected Key=Value");
  CHECK(parse_error("SwitchName=s0\n") == "topology.conf:1: SwitchName=s0: gives neither Nodes nor Switches");
  Result<ClusterImport> many =
      slurm_topology_build(parsed("SwitchName=a Nodes=h1\nSwitchName=b Nodes=h1\nSwitchName=c Nodes=h1\n"
                                  "SwitchName=d Nodes=h1\nSwitchName=e Nodes=h1\n",
                                  "t"),
                           *node_type_named("pcie-l40s"), "t", 1, "t.conf");
  REQUIRE_FALSE(many.ok());
  CHECK(many.error() == "t.conf: host h1 is under 5 switches, more than its 4 NICs can reach");
}

TEST_CASE("slurm topology: names that could not be written back are refused") {
  CHECK(parse_error("SwitchName=s0 Switches=s1BlockSizes=4\n") ==
        "topology.conf:1: Switches=s1BlockSizes=4: a host list has no '='");
  CHECK(parse_error("SwitchName=a,b Nodes=h1\n") ==
        "topology.conf:1: SwitchName=a,b: expected one name of at most 255 characters of printable ASCII, without '=', "
        "',' or brackets");
  CHECK(parse_error(std::string("SwitchName=s0 Nodes=h\x01x\n")) ==
        "topology.conf:1: SwitchName=s0: host 'h?x' has a blank, control or non-ASCII character");
  CHECK(parse_error("BlockName=b[1] Nodes=h1\n") ==
        "topology.conf:1: BlockName=b[1]: expected one name of at most 255 characters of printable ASCII, without '=', "
        "',' or brackets");
  // A switch name goes back into other switches' host lists, where names are DNS names.
  CHECK(parse_error("SwitchName=" + std::string(256, 's') + " Nodes=h1\n").find("expected one name of at most 255") !=
        std::string::npos);
}

TEST_CASE("slurm topology: leaves over the same hosts written as one switch that reads back") {
  // The merged leaf takes the leaves' names joined, made unique, or the first leaf's name where
  // the joined one would be longer than a switch name may be.
  const std::string long_a(200, 'a'), long_b(200, 'b');
  for (const auto& file_leaf : std::vector<std::pair<std::string, std::string>>{
           {"SwitchName=a Nodes=h[1-2]\nSwitchName=b Nodes=h[1-2]\nSwitchName=a+b Nodes=h3\n"
            "SwitchName=top Switches=a,b,a+b\n",
            "a+b_"},
           {"SwitchName=" + long_a + " Nodes=h[1-2]\nSwitchName=" + long_b + " Nodes=h[1-2]\n", long_a}}) {
    const std::string &file = file_leaf.first, &leaf = file_leaf.second;  // clang < 16: no bindings in CAPTURE
    CAPTURE(file);
    const ClusterImport b = built(parsed(file, "t.conf"));
    const std::string tree = slurm_tree_write(b.cluster);
    CHECK(tree.find("SwitchName=" + leaf + " Nodes=h[1-2]\n") != std::string::npos);
    const ClusterImport again = built(parsed(tree, "written.conf"));
    CHECK(again.cluster.hosts().size() == b.cluster.hosts().size());
    CHECK(slurm_tree_write(again.cluster) == tree);
  }
}

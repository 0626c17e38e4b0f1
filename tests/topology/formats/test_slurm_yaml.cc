#include "topology/formats/slurm_yaml.h"

#include <doctest/doctest.h>

#include <map>

#include "tests/support.h"
#include "topology/load.h"

using namespace topoplan;

namespace {

// Three topologies as topology.yaml(5) describes them: a tree, blocks, and a flat one.
const char* kExample = R"(# two racks of four
- topology: fabric
  cluster_default: true
  tree:
    switches:
      - switch: top
        children: leaf[1-2]
      - switch: leaf1
        nodes: node[01-04]
      - switch: leaf2
        nodes: [node05, "node[06-08]"]
- topology: racks
  cluster_default: false
  block:
    block_sizes: [4, 8]
    blocks:
      - block: b1
        nodes: node[01-04]
      - block: b2
        nodes: node[05-08]
- topology: none
  flat: true
)";

SlurmYaml parsed(const std::string& text, const std::string& name = "") {
  Result<SlurmYaml> y = slurm_yaml_parse(text, "topology.yaml", name);
  REQUIRE_MESSAGE(y.ok(), (y ? "" : y.error()));
  return *y;
}

std::string parse_error(const std::string& text, const std::string& name = "") {
  Result<SlurmYaml> y = slurm_yaml_parse(text, "topology.yaml", name);
  REQUIRE_FALSE(y.ok());
  return y.error();
}

}  // namespace

TEST_CASE("slurm yaml: the cluster default, or the topology named") {
  const SlurmYaml tree = parsed(kExample);
  CHECK(tree.name == "fabric");
  CHECK(tree.names == std::vector<std::string>{"fabric", "racks", "none"});
  REQUIRE(tree.topology.switches.size() == 3);
  CHECK(tree.topology.switches[0].switches == std::vector<std::string>{"leaf1", "leaf2"});
  CHECK(tree.topology.switches[2].nodes ==
        std::vector<std::string>{"node05", "node06", "node07", "node08"});  // a list of host lists
  CHECK(tree.topology.switches[1].line == 8);
  Result<ClusterImport> built =
      slurm_topology_build(tree.topology, *node_type_named("dgx-h100"), "y", 1, "topology.yaml");
  REQUIRE(built.ok());
  CHECK(built->cluster.hosts().size() == 8);
  CHECK(built->cluster.fabric_note == "from Slurm's topology.yaml (topology.yaml)");

  const SlurmYaml racks = parsed(kExample, "racks");
  CHECK(racks.topology.blocks.size() == 2);
  CHECK(racks.topology.block_sizes == std::vector<int>{4, 8});
  // One topology needs no cluster_default.
  CHECK(parsed("- topology: only\n  block:\n    blocks:\n      - block: b\n        nodes: h[1-2]\n").name == "only");
}

TEST_CASE("slurm yaml: written from a cluster, read back with the same hosts and leaf groups") {
  const Cluster preset = test::load_cluster("dgx-h100:64");
  const std::string text = slurm_yaml_write(preset);
  const SlurmYaml tree = parsed(text);
  CHECK(tree.names == std::vector<std::string>{"tree", "block"});
  Result<ClusterImport> b = slurm_topology_build(tree.topology, *node_type_named("dgx-h100"), "t", 1, "topology.yaml");
  REQUIRE_MESSAGE(b.ok(), (b ? "" : b.error()));
  // The tree's: each unit's rail leaves as one switch (slurm_tree_of), so the same hosts and NICs.
  CHECK(b->cluster.hosts().size() == preset.hosts().size());
  CHECK(b->cluster.gpus().size() == preset.gpus().size());
  CHECK(tree.topology.switches.front().name == "leaf0-7");
  const SlurmYaml blocks = parsed(text, "block");
  CHECK(blocks.topology.blocks.size() == 2);  // two scalable units of 32 under their leaves
  CHECK(blocks.topology.block_sizes == std::vector<int>{32, 64});
  // NVL72 racks are blocks.
  const SlurmYaml racks = parsed(slurm_yaml_write(test::load_cluster("gb200-nvl72:4")), "block");
  CHECK(racks.topology.blocks.size() == 4);
  CHECK(racks.topology.blocks[0].name == "r001");
}

TEST_CASE("slurm yaml: a tree with blocks beside it: the tree's fabric, the blocks' NVLink domains") {
  const SlurmYaml tree = parsed(kExample);
  REQUIRE(tree.topology.domain_blocks.size() == 2);
  CHECK(tree.topology.domain_blocks_from == "racks");
  Result<ClusterImport> b =
      slurm_topology_build(tree.topology, *node_type_named("gb200-nvl72"), "y", 1, "topology.yaml");
  REQUIRE_MESSAGE(b.ok(), (b ? "" : b.error()));
  const Cluster& c = b->cluster;
  CHECK(c.domains() == std::vector<std::string>{"b1", "b2"});
  CHECK(c.domains()[static_cast<size_t>(c.hosts()[*c.host_index("node05")].scaleup_domain)] == "b2");
  CHECK(c.find("leaf2").has_value());  // the tree's switches
  CHECK(b->notes.front() == "NVLink domains from the blocks of topology racks, beside the tree");
  // The blocks must hold the tree's hosts, each once.
  std::string missing = kExample;
  missing.replace(missing.find("nodes: node[05-08]\n- topology: none"), 18, "nodes: node[05-07],node09");
  Result<SlurmYaml> y = slurm_yaml_parse(missing, "topology.yaml", "");
  REQUIRE(y.ok());
  Result<ClusterImport> bad =
      slurm_topology_build(y->topology, *node_type_named("gb200-nvl72"), "y", 1, "topology.yaml");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error() ==
        "topology.yaml: host node08 is in no block of topology racks, which gives the NVLink domains of the tree's "
        "gb200-nvl72 hosts: a host is in one");
  // Topoplan's own export of NVL72 racks reads back with its racks.
  const Cluster preset = test::load_cluster("gb200-nvl72:2");
  Result<ClusterImport> back = slurm_topology_build(parsed(slurm_yaml_write(preset)).topology,
                                                    *node_type_named("gb200-nvl72"), "t", 1, "t.yaml");
  REQUIRE_MESSAGE(back.ok(), (back ? "" : back.error()));
  CHECK(back->cluster.domains() == preset.domains());
}

TEST_CASE("slurm yaml: malformed files get one clear error each") {
  CHECK(parse_error("- topology: a\n  tree: [unclosed\n").find("topology.yaml:") == 0);
  CHECK(parse_error("- topology: a\n  tree: [unclosed\n").find("not YAML") != std::string::npos);
  CHECK(parse_error("") == "topology.yaml: expected a list of topologies ('- topology: NAME')");
  CHECK(parse_error("topology: a\n") == "topology.yaml:1: expected a list of topologies ('- topology: NAME')");
  CHECK(parse_error("- tree: {}\n") == "topology.yaml:1: a topology entry needs 'topology: NAME'");
  CHECK(parse_error("- topology: a\n  tre: {}\n") ==
        "topology.yaml:2: topology a: unknown key 'tre' (expected topology, cluster_default, tree, block, flat, ring, "
        "torus3d)");
  CHECK(parse_error("- topology: a\n  flat: true\n  tree: {}\n") ==
        "topology.yaml:1: topology a: expected exactly one of tree, block or flat");
  CHECK(parse_error("- topology: a\n  flat: true\n") ==
        "topology.yaml:1: topology a is flat: it names no switches; pick a tree or block topology");
  CHECK(parse_error("- topology: a\n  flat: true\n- topology: b\n  flat: true\n") ==
        "topology.yaml: 2 topologies and none is cluster_default: pick one with --topology (a, b)");
  CHECK(parse_error("- topology: a\n  cluster_default: maybe\n  flat: true\n") ==
        "topology.yaml:2: topology a: cluster_default: expected true or false");
  CHECK(parse_error(kExample, "fabrik") ==
        "topology.yaml: no topology named 'fabrik' (the file has fabric, racks, none)");
  const std::string tree = "- topology: t\n  tree:\n    switches:\n";
  CHECK(parse_error(tree + "      - switch: s1\n        children: s1\n") ==
        "topology.yaml:4: switch s1: children names s1 itself");
  CHECK(parse_error(tree + "      - switch: s1\n        nodes: h[05-01]\n")
            .find("topology.yaml:5: switch s1: nodes 'h[05-01]': ") == 0);
  CHECK(parse_error(tree + "      - switch: s1\n        children: s2\n") ==
        "topology.yaml:4: switch s1: children names s2, which no switch entry defines");
  CHECK(parse_error(tree + "      - switch: s1\n") == "topology.yaml:4: switch s1: gives neither nodes nor children");
  CHECK(parse_error(tree + "      - switch: s1\n        nodes: h1\n        speed: 400\n") ==
        "topology.yaml:6: switch s1: unknown key 'speed' (expected switch, children, nodes)");
  CHECK(parse_error(tree + "      - switch: [a, b]\n        nodes: h1\n") ==
        "topology.yaml:4: switch: expected a name");
  CHECK(parse_error(tree + "      - switch: a=b\n        nodes: h1\n") ==
        "topology.yaml:4: switch a=b: expected one name of at most 255 characters of printable ASCII, without '=', ',' "
        "or brackets");
  CHECK(parse_error(tree + "      - switch: a\n        nodes: h1\n      - switch: a\n        nodes: h2\n") ==
        "topology.yaml:6: switch a: already defined on line 4");
  CHECK(parse_error("- topology: t\n  tree:\n    switches: s1\n") ==
        "topology.yaml:3: topology t: tree: switches: expected a list");
  const std::string block = "- topology: b\n  block:\n";
  CHECK(parse_error(block + "    block_sizes: [4, x]\n    blocks:\n      - block: b1\n        nodes: h[1-4]\n") ==
        "topology.yaml:3: topology b: block: block_sizes: 'x' is not a positive number of nodes");
  CHECK(parse_error(block + "    blocks:\n      - block: b1\n") == "topology.yaml:4: block b1: gives no nodes");
  CHECK(parse_error(block + "    block_sizes: [4, 6]\n    blocks:\n      - block: b1\n        nodes: h[1-4]\n") ==
        "topology.yaml:3: block_sizes: 6 is not 4 (the base block size, the first) times a power of two up to 32768: "
        "Slurm's block "
        "plugin joins 2, 4, 8 ... base blocks into larger ones");
  CHECK(parse_error(block + "    block_sizes: [4]\n    blocks:\n      - block: b1\n        nodes: h[1-4]\n      - "
                            "block: b2\n        nodes: h5\n") ==
        "topology.yaml:7: block b2: 1 host, fewer than the base block size 4 (block_sizes' first): Slurm's block "
        "plugin refuses a "
        "smaller block");
  CHECK(parse_error(block + "    block_sizes: [4]\n") == "topology.yaml:3: topology b: block: gives no blocks");
  // Aliases cannot multiply a host list past the limit on names.
  std::string many = "- topology: t\n  tree:\n    switches:\n      - switch: s\n        nodes: [&h 'h[1-900000]'";
  for (int i = 0; i < 3; ++i) many += ", *h";
  CHECK(parse_error(many + "]\n").find("more than 1000000 hosts in all") != std::string::npos);
}

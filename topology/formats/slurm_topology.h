// Slurm's topology.conf: the tree plugin's SwitchName lines (Nodes= for leaves, Switches= above
// them) and the block plugin's BlockName lines with BlockSizes. Read into a cluster of one node
// type, and written from any cluster, so topoplan and the scheduler see the same fabric.
#pragma once

#include <string>
#include <vector>

#include "topology/cluster.h"
#include "topology/formats/import_format.h"
#include "topology/node_types.h"

namespace topoplan {

struct SlurmTopology {
  struct Switch {
    std::string name;
    std::vector<std::string> nodes, switches;  // expanded host lists
    int line = 0;
  };
  struct Block {
    std::string name;
    std::vector<std::string> nodes;
    int line = 0;
  };
  std::vector<Switch> switches;  // tree plugin, in file order
  std::vector<Block> blocks;     // block plugin, in file order
  std::vector<int> block_sizes;
  int block_sizes_line = 0;
  bool yaml = false;  // read from topology.yaml: messages use its keys
  // topology.yaml: the blocks of a block topology beside the tree read, which say which hosts
  // share an NVLink domain where the tree cannot; and that topology's name.
  std::vector<Block> domain_blocks;
  std::string domain_blocks_from;
};

// Errors name `where` and the line: "topology.conf:7: SwitchName=s1: Switches names s1 itself".
Result<SlurmTopology> slurm_topology_parse(const std::string& text, const std::string& where);
// Whether the file's first line (import_format.h) is a SwitchName=, BlockName= or BlockSizes= one.
bool slurm_conf_sniff(std::string_view line, std::string_view text);

// What either file must obey, each error with its entry's line: names Slurm can write back, no
// switch or block defined twice, every switch with hosts or children, every child defined, no
// switch below itself, not both plugins' entries; and what Slurm's block plugin refuses to start
// on: block sizes that are not the base block's times a power of two, a block below the base size.
Result<SlurmTopology> slurm_topology_check(SlurmTopology topo, const std::string& where);

// A running count of the names host lists expand to, so that many entries of a million names each
// are refused rather than expanded into gigabytes.
class HostlistBudget {
 public:
  // "" when `more` names still fit, else why not.
  std::string spend(size_t more);

 private:
  size_t used_ = 0;
};

// A cluster of `type` hosts, named as in the file; its notes say where switches were added where the
// file has none and which hosts are under two leaves. Tree: each SwitchName a switch (leaves tier 1,
// a parent one above its highest child), a host's NICs spread over the leaves that list it, and
// a switch's uplinks whole ports at the NIC rate, its down ports over `oversubscription` rounded
// up, spread over its parents (the file gives no rates); several top switches get a root above
// them. Block: each block a leaf under one root; with a rack-scale type (hosts_per_domain > 1)
// each block is also one NVLink domain, and a block larger than the type's domain is an error.
// A tree names no domains: rack-scale hosts take them from `domain_blocks` where topology.yaml has
// blocks beside the tree (the same hosts), else fill racks in the order the file names them, noted.
Result<ClusterImport> slurm_topology_build(const SlurmTopology& topo, const NodeType& type, const std::string& name,
                                           double oversubscription, const std::string& where);

// The cluster as the tree plugin sees it: every switch with the hosts whose NICs it serves or the
// switches below it, leaves first; leaves that serve the same hosts (one per rail of a
// rail-optimized unit) as one switch named after them (leaf0-7), since Slurm must see each host
// under one leaf.
SlurmTopology slurm_tree_of(const Cluster& cluster);
// As the block plugin sees it: a block per NVLink domain of more than one host (NVL72 racks), else
// per leaf group (hosts under the same leaves); block sizes doubling from the smallest block up to
// the cluster. `what` says which.
SlurmTopology slurm_blocks_of(const Cluster& cluster, std::string* what);

// topology.conf for the tree plugin, host lists compressed.
std::string slurm_tree_write(const Cluster& cluster);
// topology.conf for the block plugin.
std::string slurm_block_write(const Cluster& cluster);

}  // namespace topoplan

// What both Slurm fuzz targets check once a file parsed: a small topology builds or says why, and
// the built cluster written back in the same format reads back to the same hosts and devices.
#pragma once

#include "fuzz/fuzz.h"
#include "topology/formats/slurm_topology.h"

namespace topoplan::fuzz {

// Building is linear in the hosts; the fuzzer builds few so that it spends its time parsing.
constexpr size_t kSlurmBuildHosts = 64;

// `reread` writes a cluster in the format under test and parses it again.
template <typename Reread>
void expect_slurm_round_trip(const SlurmTopology& topo, Reread reread) {
  size_t hosts = 0;
  for (const auto& s : topo.switches) hosts += s.nodes.size();
  for (const auto& b : topo.blocks) hosts += b.nodes.size();
  if (hosts > kSlurmBuildHosts) return;
  static const NodeType type = *node_type_named("dgx-h100");
  Result<ClusterImport> built = slurm_topology_build(topo, type, "fuzz", 1, "fuzz");
  if (!ok_or_explained(built)) return;
  Result<SlurmTopology> again = reread(built->cluster);
  if (!again) violated("the written topology does not parse:", again.error());
  Result<ClusterImport> rebuilt = slurm_topology_build(*again, type, "fuzz", 1, "written");
  if (!rebuilt) violated("the written topology does not build:", rebuilt.error());
  if (rebuilt->cluster.hosts().size() != built->cluster.hosts().size() ||
      rebuilt->cluster.num_devices() != built->cluster.num_devices())
    violated("writing and reading the tree changed the cluster");
}

}  // namespace topoplan::fuzz

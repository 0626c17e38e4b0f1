// Slurm topology.conf: parse, build the small ones, write the tree and read it back to the same
// hosts and switches.
#include "fuzz/fuzz.h"
#include "topology/formats/slurm_topology.h"

using namespace topoplan;

// Building is linear in the hosts; the fuzzer builds few so that it spends its time parsing.
constexpr size_t kBuildHosts = 64;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Result<SlurmTopology> topo = slurm_topology_parse(fuzz::text(data, size), "fuzz.conf");
  if (!fuzz::ok_or_explained(topo)) return 0;
  size_t hosts = 0;
  for (const auto& s : topo->switches) hosts += s.nodes.size();
  for (const auto& b : topo->blocks) hosts += b.nodes.size();
  if (hosts > kBuildHosts) return 0;
  static const NodeType type = *node_type_named("dgx-h100");
  Result<SlurmImport> built = slurm_topology_build(*topo, type, "fuzz", 1, "fuzz.conf");
  if (!fuzz::ok_or_explained(built)) return 0;
  const std::string written = slurm_tree_write(built->cluster);
  Result<SlurmTopology> again = slurm_topology_parse(written, "written.conf");
  if (!again) fuzz::violated("the written topology.conf does not parse:", again.error());
  Result<SlurmImport> rebuilt = slurm_topology_build(*again, type, "fuzz", 1, "written.conf");
  if (!rebuilt) fuzz::violated("the written topology.conf does not build:", rebuilt.error());
  if (rebuilt->cluster.hosts().size() != built->cluster.hosts().size() ||
      rebuilt->cluster.num_devices() != built->cluster.num_devices())
    fuzz::violated("writing and reading the tree changed the cluster");
  return 0;
}

// Slurm topology.conf: parse, build the small ones, write the tree and read it back to the same
// hosts; that file is a fixed point.
#include "fuzz/slurm_build.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Result<SlurmTopology> topo = slurm_topology_parse(fuzz::text(data, size), "fuzz.conf");
  if (!fuzz::ok_or_explained(topo)) return 0;
  fuzz::expect_slurm_round_trip(*topo, slurm_tree_write, fuzz::slurm_conf);
  return 0;
}

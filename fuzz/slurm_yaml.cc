// Slurm topology.yaml through yaml-cpp: parse, build the small ones, write the cluster's
// topology.yaml and read its tree back to the same hosts; that file is a fixed point.
#include "topology/formats/slurm_yaml.h"
#include "fuzz/slurm_build.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Result<SlurmYaml> yaml = slurm_yaml_parse(fuzz::text(data, size), "fuzz.yaml", "");
  if (!fuzz::ok_or_explained(yaml)) return 0;
  fuzz::expect_slurm_round_trip(yaml->topology, slurm_yaml_write, fuzz::slurm_yaml_tree);
  return 0;
}

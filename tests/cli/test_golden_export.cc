// What `topo export` writes for schedulers and NCCL, byte for byte (tests/golden.h): a change to
// a Slurm, Kubernetes or NCCL file is one a person reviews before it reaches a cluster.
#include <doctest/doctest.h>

#include "tests/golden.h"
#include "tests/support.h"

namespace {

void check(const std::string& cluster, const std::string& format, const std::string& file,
           const std::string& options = "") {
  auto r = topoplan::test::run_topoplan("topo export " + cluster + " --format " + format + options,
                                        topoplan::test::source_dir());
  INFO(cluster << " " << format);
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  topoplan::test::check_golden("export", file, r.out);
}

}  // namespace

TEST_CASE("golden: topo export of a rail-optimized pod and an NVL72 rack in every scheduler format") {
  for (const char* format : {"slurm-tree", "slurm-block", "slurm-yaml", "k8s-labels", "kueue-topology"}) {
    check("data/clusters/pods-16-h100.json", format, std::string("pods-16-h100.") + format);
    check("gb200-nvl72:2", format, std::string("gb200-nvl72-2.") + format);
  }
  for (const char* format : {"k8s-labels", "kueue-topology"})
    check("gb200-nvl72:2", format, std::string("gb200-nvl72-2.tiers.") + format, " --labels tiers");
  check("dgx-h100", "nccl-xml", "dgx-h100.nccl-xml");
  check("pcie-l40s", "nccl-xml", "pcie-l40s.nccl-xml");
}

// Layout files, every form: a host list in rank order (hostlist expressions, slots=N), JSON, plan
// files, Open MPI rankfiles, ranks.env and torchrun.txt. The first byte sets the job's rank count
// (1 to 16, or 0: as many as the file places), the rest is the file, on a fixed two-node cluster.
#include "planner/layout.h"
#include "fuzz/fuzz.h"
#include "topology/load.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Cluster cluster = *cluster_load("dgx-h100:2");
  if (size == 0) return 0;
  const int world = data[0] % 17;
  Result<Layout> layout = layout_parse(fuzz::text(data + 1, size - 1), "fuzz.txt", cluster, world);
  if (!fuzz::ok_or_explained(layout)) return 0;
  if (world > 0 && layout->world_size() != world) fuzz::violated("a layout with the wrong number of ranks");
  if (layout->world_size() == 0) fuzz::violated("a layout with no rank");
  return 0;
}

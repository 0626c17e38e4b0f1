// Preset specs ("dgx-h100:32"): parse, plan, and build the small ones.
#include "fuzz/fuzz.h"
#include "topology/fabric_plan.h"
#include "topology/load.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Result<ClusterSpec> spec = preset_spec_parse(fuzz::text(data, size));
  if (!fuzz::ok_or_explained(spec)) return 0;
  Result<FabricPlan> plan = fabric_plan(*spec);
  if (!fuzz::ok_or_explained(plan) || plan->devices > 20'000) return 0;
  fuzz::ok_or_explained(cluster_build(*spec));
  return 0;
}

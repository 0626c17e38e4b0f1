// Cluster recipes: parse, plan (limits), and build the small ones.
#include "fuzz/fuzz.h"
#include "topology/fabric_plan.h"
#include "topology/formats/json.h"
#include "topology/summary.h"

using namespace topoplan;

// Building is linear in the plan's counts, which the plan test checks; the fuzzer builds small
// clusters so that it spends its time on parsing and planning.
constexpr int64_t kBuildDevices = 20'000;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::optional<nlohmann::json> doc = fuzz::json_input(data, size);
  if (!doc) return 0;
  Result<ClusterSpec> spec = recipe_from_json(*doc, "fuzz.json");
  if (!fuzz::ok_or_explained(spec)) return 0;
  Result<FabricPlan> plan = fabric_plan(*spec);
  if (!fuzz::ok_or_explained(plan) || plan->devices > kBuildDevices) return 0;
  Result<Cluster> c = cluster_build(*spec);
  if (!fuzz::ok_or_explained(c)) return 0;
  if (static_cast<int64_t>(c->num_devices()) != plan->devices ||
      static_cast<int64_t>(c->num_edges()) != 2 * plan->links)
    fuzz::violated("the plan's counts differ from the built cluster's");
  summary_to_text(cluster_summarize(*c));
  return 0;
}

// Plan files as topoplan-validate reads them: every plan that loads has groups that cover the world
// once per kind, all of one size, and something to run on each kind.
#include "fuzz/fuzz.h"
#include "validate/plan_file.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Result<ValidatePlan> plan = validate_plan_parse(fuzz::text(data, size), "fuzz.json");
  if (!fuzz::ok_or_explained(plan)) return 0;
  for (const ValidateKind& k : plan->kinds) {
    if (k.collectives.empty()) fuzz::violated("a kind with nothing to run", k.kind);
    std::vector<int> seen(static_cast<size_t>(plan->world), 0);
    for (const std::vector<int>& g : k.groups) {
      if (g.size() != k.groups.front().size()) fuzz::violated("groups of different sizes", k.kind);
      for (int r : g) ++seen[static_cast<size_t>(r)];
    }
    for (int n : seen)
      if (n != 1) fuzz::violated("a rank not in exactly one group", k.kind);
  }
  fuzz::ok_or_explained(validate_kinds_select(*plan, "tp,dp"));
  return 0;
}

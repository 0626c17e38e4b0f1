// --keep lists of the planner.
#include "fuzz/fuzz.h"
#include "planner/plan.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::ok_or_explained(keep_rules_parse(fuzz::text(data, size)));
  return 0;
}

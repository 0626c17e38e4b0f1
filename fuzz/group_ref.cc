// explain's --group KIND:INDEX.
#include "planner/group_ref.h"
#include "fuzz/fuzz.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Result<GroupRef> g = group_ref_parse(fuzz::text(data, size));
  if (fuzz::ok_or_explained(g) && g->index < 0) fuzz::violated("a negative group index");
  return 0;
}

// plan's --emit lists: the plan file and launcher formats.
#include "fuzz/fuzz.h"
#include "planner/emit/emit.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::ok_or_explained(emit_list_parse(fuzz::text(data, size)));
  return 0;
}

// Slurm host lists: expand, and compress the names back to a list that expands to the same.
#include "base/hostlist.h"
#include "fuzz/fuzz.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Result<std::vector<std::string>> names = hostlist_expand(fuzz::text(data, size));
  if (!fuzz::ok_or_explained(names)) return 0;
  const std::string compressed = hostlist_compress(*names);
  Result<std::vector<std::string>> again = hostlist_expand(compressed);
  if (!again) fuzz::violated("a compressed host list does not expand:", compressed + ": " + again.error());
  if (*again != *names) fuzz::violated("compressing changed the host list:", compressed);
  return 0;
}

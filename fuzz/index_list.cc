// GPU index lists ("0-7,12"): every index parsed is in range and listed once.
#include <set>

#include "base/index_list.h"
#include "fuzz/fuzz.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  constexpr int kLimit = 4096;
  Result<std::vector<int>> list = parse_index_list(fuzz::text(data, size), kLimit);
  if (!fuzz::ok_or_explained(list)) return 0;
  std::set<int> seen;
  for (int i : *list)
    if (i < 0 || i >= kLimit || !seen.insert(i).second) fuzz::violated("an index out of range or repeated");
  return 0;
}

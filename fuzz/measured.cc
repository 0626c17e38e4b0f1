// topoplan-validate's results as compare reads them: every result that loads has a known kind, a
// size and a time above zero, and ranks inside the world.
#include <cmath>

#include "fuzz/fuzz.h"
#include "planner/group_ref.h"
#include "validate/compare.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Result<Measured> m = measured_parse(fuzz::text(data, size), "fuzz.json");
  if (!fuzz::ok_or_explained(m)) return 0;
  for (const MeasuredResult& r : m->results) {
    if (group_token(r.kind).empty()) fuzz::violated("an unknown kind", r.kind);
    if (!(r.bytes > 0) || !(r.time_us > 0) || !std::isfinite(r.bytes) || !std::isfinite(r.time_us))
      fuzz::violated("a size or time that is not above zero");
    for (int rank : r.ranks)
      if (rank < 0 || rank >= m->world) fuzz::violated("a rank outside the world");
  }
  return 0;
}

// Sizes, rates and durations: every value parsed is finite, non-negative and within its limit,
// and formats without overflow.
#include <cmath>

#include "base/limits.h"
#include "base/units.h"
#include "fuzz/fuzz.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string s = fuzz::text(data, size);
  auto check = [](const Result<double>& r, double max, std::string (*format)(double)) {
    if (!fuzz::ok_or_explained(r)) return;
    if (!std::isfinite(*r) || *r < 0 || *r > max) fuzz::violated("a parsed value out of range:", format_exact(*r));
    if (format(*r).find('-') != std::string::npos) fuzz::violated("a negative formatted value:", format(*r));
  };
  check(parse_bytes(s), limits::kMaxBytes, format_bytes);
  check(parse_rate_GBps(s), limits::kMaxRateGBps, format_rate_gbit);
  check(parse_duration_s(s), limits::kMaxSeconds, format_duration);
  return 0;
}

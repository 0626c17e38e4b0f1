// Sizes, rates and durations are parsed here and nowhere else: SI prefixes are decimal (100TB),
// IEC prefixes binary (16GiB); rates in bits (400Gbps) or bytes (50GB/s) per second.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"

namespace topoplan {

// Each parser refuses negative, non-finite and out-of-range values (base/limits.h) with a
// message that says which limit, and accepts a unit in any case except b (bits) against B (bytes).
// "16GiB" -> 17179869184, "100TB" -> 1e14, "8" or "8B" -> 8.
Result<double> parse_bytes(std::string_view text);
// "MIN:MAX" with 1 <= MIN <= MAX: "8B:16GiB" -> {8, 17179869184}.
Result<std::pair<double, double>> parse_bytes_range(std::string_view text);
// "400Gbps" -> 50 (GB/s), "50GB/s" -> 50, "1.6Tbps" -> 200. Result in GB/s (1e9 bytes/s).
Result<double> parse_rate_GBps(std::string_view text);
// "1h", "30min", "1h30m", "90s", "500ms", "10us", "2.5h" -> seconds.
Result<double> parse_duration_s(std::string_view text);

// 8000 -> "2 h 13 min 20 s"; sub-second values in ms/us. Total: beyond the duration limit it says
// "more than 1000 years", never an overflowed number.
std::string format_duration(double seconds);
// The largest unit that keeps 3-4 significant digits: 1e14 -> "100 TB", 17179869184 -> "16 GiB",
// 253231104 -> "241.5 MiB", 1610612737 -> "1.61 GB" (exact values first, decimal, then binary).
std::string format_bytes(double bytes);
// One convention for a column of sizes, so a table does not put 256 KiB above 100 MB: binary where
// every size is a whole number of binary units (sizes in powers of two), else decimal.
enum class SizeUnits { decimal, binary };
SizeUnits size_units_of(const std::vector<double>& sizes);
// `bytes` in that convention, 3-4 significant digits as above: 262144 -> "262.14 KB" or "256 KiB".
std::string format_bytes(double bytes, SizeUnits units);
// The shortest text that reads back as the same double: 1e-300, 0.1, 1048576. For quoting a
// value a person gave in an error, where format_number would round 1e-300 to "0".
std::string format_exact(double value);
// 1048576 -> "1,048,576": counts in messages.
std::string format_count(int64_t n);
// 50 GB/s -> "400 Gbps", 200 GB/s -> "1.6 Tbps": bits per second in the largest unit that leaves at least 1.
std::string format_rate_gbit(double GBps);
// Shortest decimal that reads back to the same double (for stable JSON and text).
std::string format_number(double value, int max_decimals = 3);
// How far a step (or any time) is over the best one, for a "vs best" column: "best" within
// 0.05 % of it (what rounding and moves that add bytes and take them back leave), else "+12.3%".
std::string format_over_best(double value, double best);

}  // namespace topoplan

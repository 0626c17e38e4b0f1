// Sizes, rates and durations are parsed here and nowhere else: SI prefixes are decimal (100TB),
// IEC prefixes binary (16GiB); rates in bits (400Gbps) or bytes (50GB/s) per second.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "topology/error.h"

namespace topoplan {

// "16GiB" -> 17179869184, "100TB" -> 1e14, "8" or "8B" -> 8.
Result<double> parse_bytes(std::string_view text);
// "400Gbps" -> 50 (GB/s), "50GB/s" -> 50, "1.6Tbps" -> 200. Result in GB/s (1e9 bytes/s).
Result<double> parse_rate_GBps(std::string_view text);
// "1h", "30min", "1h30m", "90s", "500ms", "10us", "2.5h" -> seconds.
Result<double> parse_duration_s(std::string_view text);

// 8000 -> "2 h 13 min 20 s"; sub-second values in ms/us.
std::string format_duration(double seconds);
// 17179869184 -> "16 GiB", 1e14 -> "100 TB" (binary when exact, else decimal).
std::string format_bytes(double bytes);
// 50 GB/s -> "400 Gbps".
std::string format_rate_gbit(double GBps);
// Shortest decimal that reads back to the same double (for stable JSON and text).
std::string format_number(double value, int max_decimals = 3);

}  // namespace topoplan

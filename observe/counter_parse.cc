#include "observe/counter_parse.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "base/limits.h"
#include "base/words.h"

namespace topoplan::counter_parse {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::string shown(std::string_view s) {
  s = trim(s);
  std::string out(s.substr(0, 80));
  for (char& c : out)
    if (blank(c) && c != ' ') c = '?';
  return "'" + out + (s.size() > 80 ? "...'" : "'");
}

std::optional<double> number(std::string_view s) {
  // Go's ParseFloat (Prometheus) takes "+1" and "+Inf"; from_chars takes neither.
  if (s.size() > 1 && s.front() == '+' && s[1] != '-' && s[1] != '+') s.remove_prefix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<uint64_t> whole(std::string_view s) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

constexpr double kTwoTo64 = 18446744073709551616.0;

std::optional<uint64_t> count_of(double v) {
  if (!std::isfinite(v) || v < 0 || v >= kTwoTo64) return std::nullopt;
  return static_cast<uint64_t>(std::nearbyint(v));
}

std::string why_not_count(double v) {
  if (std::isnan(v)) return "NaN is not a counter value";
  if (std::isinf(v)) return "an infinite value is not a counter value";
  if (v < 0) return "a counter is never negative";
  return "above 2^64-1, the largest 64-bit counter";
}

std::optional<Result<double>> time_line(std::string_view line, const std::string& at) {
  std::optional<std::string_view> rest;
  for (std::string_view prefix : {"# time:", "# timestamp:"})
    if (starts_with(line, prefix)) rest = trim(line.substr(prefix.size()));
  if (!rest) return std::nullopt;
  const std::optional<double> t = number(*rest);
  if (!t || !std::isfinite(*t) || *t < 0 || *t > limits::kMaxSeconds)
    return Result<double>(Error{at + ": expected '# time: <unix seconds>' (date +%s), got " + shown(*rest)});
  return Result<double>(*t);
}

}  // namespace topoplan::counter_parse

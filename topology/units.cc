#include "topology/units.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "topology/suggest.h"

namespace topoplan {
namespace {

struct Unit {
  const char* name;
  double factor;
};

// Splits "12.5GiB" into 12.5 and "GiB"; fails on a missing or malformed number.
bool split_number(std::string_view text, double* number, std::string_view* unit) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, *number);
  if (ec != std::errc() || !std::isfinite(*number)) return false;
  *unit = std::string_view(ptr, static_cast<size_t>(end - ptr));
  return true;
}

Result<double> parse_with(std::string_view text, const std::vector<Unit>& units, const char* what,
                          bool unit_required) {
  std::string quoted = "'" + std::string(text) + "'";
  double number = 0;
  std::string_view unit;
  if (!split_number(text, &number, &unit))
    return Error{"invalid " + std::string(what) + " " + quoted + ": expected a number and a unit"};
  if (number < 0) return Error{"invalid " + std::string(what) + " " + quoted + ": must not be negative"};
  if (unit.empty() && !unit_required) return number;
  std::vector<std::string> names;
  for (const auto& u : units) {
    if (unit == u.name) return number * u.factor;
    names.emplace_back(u.name);
  }
  std::string list;
  for (const auto& u : units) list += std::string(list.empty() ? "" : ", ") + u.name;
  return Error{"invalid " + std::string(what) + " " + quoted + ": unknown unit '" + std::string(unit) +
               "'" + did_you_mean(unit, names) + " (expected one of " + list + ")"};
}

}  // namespace

Result<double> parse_bytes(std::string_view text) {
  static const std::vector<Unit> units = {
      {"B", 1},       {"KB", 1e3},          {"MB", 1e6},          {"GB", 1e9},
      {"TB", 1e12},   {"PB", 1e15},         {"KiB", 1024.0},      {"MiB", 1048576.0},
      {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}, {"PiB", 1125899906842624.0}};
  return parse_with(text, units, "size", false);
}

Result<double> parse_rate_GBps(std::string_view text) {
  static const std::vector<Unit> units = {
      {"bps", 1e-9 / 8},  {"Kbps", 1e-6 / 8}, {"Mbps", 1e-3 / 8}, {"Gbps", 1.0 / 8},
      {"Tbps", 1e3 / 8},  {"Gb/s", 1.0 / 8},  {"Tb/s", 1e3 / 8},  {"B/s", 1e-9},
      {"KB/s", 1e-6},     {"MB/s", 1e-3},     {"GB/s", 1.0},      {"TB/s", 1e3},
      {"GiB/s", 1.073741824}, {"MiB/s", 1.048576e-3}};
  Result<double> r = parse_with(text, units, "rate", true);
  if (r && *r <= 0) return Error{"invalid rate '" + std::string(text) + "': must be > 0"};
  return r;
}

Result<double> parse_duration_s(std::string_view text) {
  static const std::vector<Unit> units = {{"d", 86400}, {"h", 3600}, {"min", 60}, {"m", 60},
                                          {"s", 1},     {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
  if (text.empty()) return Error{"invalid duration '': expected e.g. 1h, 30min, 1h30m, 90s"};
  double total = 0;
  std::string_view rest = text;
  while (!rest.empty()) {
    // Each part is a number followed by letters: "1h30m" = "1h" + "30m".
    size_t digits = 0;
    while (digits < rest.size() && (std::isdigit(static_cast<unsigned char>(rest[digits])) || rest[digits] == '.'))
      ++digits;
    size_t letters = digits;
    while (letters < rest.size() && std::isalpha(static_cast<unsigned char>(rest[letters]))) ++letters;
    if (digits == 0 || letters == digits)
      return Error{"invalid duration '" + std::string(text) + "': expected e.g. 1h, 30min, 1h30m, 90s"};
    Result<double> part = parse_with(rest.substr(0, letters), units, "duration", true);
    if (!part) return Error{part.error() + " in '" + std::string(text) + "'"};
    total += *part;
    rest.remove_prefix(letters);
  }
  if (total <= 0) return Error{"invalid duration '" + std::string(text) + "': must be > 0"};
  return total;
}

std::string format_number(double value, int max_decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", max_decimals, value);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

std::string format_duration(double seconds) {
  if (seconds < 1e-3) return format_number(seconds * 1e6, 2) + " us";
  if (seconds < 1) return format_number(seconds * 1e3, 2) + " ms";
  if (seconds < 60) return format_number(seconds, 2) + " s";
  auto total = static_cast<long long>(std::llround(seconds));
  long long d = total / 86400, h = total % 86400 / 3600, m = total % 3600 / 60, s = total % 60;
  std::string out;
  auto add = [&out](long long n, const char* unit) {
    if (!out.empty()) out += ' ';
    out += std::to_string(n) + " " + unit;
  };
  if (d) add(d, "d");
  if (d || h) add(h, "h");
  if (d || h || m) add(m, "min");
  add(s, "s");
  return out;
}

std::string format_bytes(double bytes) {
  static const std::pair<const char*, double> binary[] = {
      {"PiB", 1125899906842624.0}, {"TiB", 1099511627776.0}, {"GiB", 1073741824.0}, {"MiB", 1048576.0},
      {"KiB", 1024.0}};
  static const std::pair<const char*, double> decimal[] = {
      {"PB", 1e15}, {"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}};
  // Exact decimal first (100 TB), then exact binary (16 GiB), then rounded decimal.
  for (auto [name, f] : decimal)
    if (bytes >= f && std::fmod(bytes, f) == 0) return format_number(bytes / f) + " " + name;
  for (auto [name, f] : binary)
    if (bytes >= f && std::fmod(bytes, f) == 0) return format_number(bytes / f) + " " + name;
  for (auto [name, f] : decimal)
    if (bytes >= f) return format_number(bytes / f, 2) + " " + name;
  return format_number(bytes) + " B";
}

std::string format_rate_gbit(double GBps) {
  double gbit = GBps * 8;
  if (gbit >= 1000) return format_number(gbit / 1000, 3) + " Tbps";
  return format_number(gbit, 2) + " Gbps";
}

}  // namespace topoplan

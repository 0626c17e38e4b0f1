#include "base/units.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "base/limits.h"
#include "base/suggest.h"
#include "base/words.h"

namespace topoplan {
namespace {

struct Unit {
  const char* name;
  double factor;
};

// One kind of quantity: its units and the largest value a person may give, in base units.
struct Quantity {
  const char* what;  // "size"
  std::vector<Unit> units;
  double max;
  std::string max_text;  // "1 EB"
  bool bytes = false;    // a unit in bits is a mistake to explain, not a typo to correct
};

// Case does not matter in a unit, except b (bits) against B (bytes): "gbps" is "Gbps", but
// "GBps" is not "Gbps", it is a mistyped "GB/s".
std::string folded(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c != 'b' && c != 'B') c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Result<const Unit*> unit_find(std::string_view unit, const Quantity& q, const std::string& quoted) {
  const Unit* match = nullptr;
  for (const Unit& u : q.units) {
    if (unit == u.name) return &u;
    if (!match && folded(unit) == folded(u.name)) match = &u;
  }
  if (match) return match;
  // Suggest among units of the same kind: bytes for a B, bits for a b.
  const bool bytes = unit.find('B') != std::string_view::npos, bits = unit.find('b') != std::string_view::npos;
  std::vector<std::string> names, alike;
  std::string list;
  for (const Unit& u : q.units) {
    std::string_view n = u.name;
    names.emplace_back(n);
    if ((!bytes || n.find('B') != n.npos) && (!bits || n.find('b') != n.npos)) alike.emplace_back(n);
    list += std::string(list.empty() ? "" : ", ") + u.name;
  }
  // Compared without case: "gib" is one b away from "GiB", not three letters.
  const std::vector<std::string>& pool = alike.empty() ? names : alike;
  std::vector<std::string> lowered;
  for (const std::string& n : pool) lowered.push_back(lower(n));
  const std::string closest = suggest_closest(lower(unit), lowered);
  std::string hint;
  for (size_t i = 0; i < pool.size(); ++i)
    if (!closest.empty() && lowered[i] == closest) hint = ", did you mean '" + pool[i] + "'?";
  return Error{"invalid " + std::string(q.what) + " " + quoted + ": unknown unit '" + std::string(unit) + "'" + hint +
               " (expected one of " + list + ")"};
}

// "100Tb" for a size: the unit is bits where bytes are meant, and the byte unit a typo check would
// suggest is 8x off. Says what the bits are in bytes; "" when the unit is not a size in bits.
std::string bits_as_bytes(std::string_view unit, double number, const Quantity& q) {
  if (!q.bytes || unit.find('b') == std::string_view::npos || unit.find('B') != std::string_view::npos) return "";
  std::string as_bytes(unit);
  as_bytes[as_bytes.rfind('b')] = 'B';
  static constexpr std::pair<const char*, const char*> kWords[] = {
      {"B", "bits"},       {"KB", "kilobits"},  {"MB", "megabits"},  {"GB", "gigabits"},
      {"TB", "terabits"},  {"PB", "petabits"},  {"EB", "exabits"},   {"KiB", "kibibits"},
      {"MiB", "mebibits"}, {"GiB", "gibibits"}, {"TiB", "tebibits"}, {"PiB", "pebibits"}};
  for (const Unit& u : q.units)
    if (folded(as_bytes) == folded(u.name))
      for (const auto& [name, word] : kWords)
        if (std::string_view(name) == u.name)
          return "sizes are in bytes and '" + std::string(unit) + "' is " + word + ": " + format_number(number) + " " +
                 std::string(unit) + " is " + format_bytes(number * u.factor / 8);
  return "";
}

// "12.5GiB" -> 12.5 x 2^30. A number out of double's range, negative, or past the quantity's
// limit is refused here, so nothing downstream sees an infinity or an overflowed product.
Result<double> parse_with(std::string_view text, const Quantity& q, bool unit_required) {
  const std::string quoted = "'" + std::string(text) + "'";
  const std::string head = "invalid " + std::string(q.what) + " " + quoted + ": ";
  double number = 0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, number);
  if (ec == std::errc::result_out_of_range)
    return Error{head + "the number is out of range (" + q.what + "s go up to " + q.max_text + ")"};
  if (ec != std::errc() || !std::isfinite(number)) return Error{head + "expected a number and a unit"};
  if (number < 0) return Error{head + "must not be negative"};
  const std::string_view unit(ptr, static_cast<size_t>(end - ptr));
  double factor = 1;
  if (std::string bits = bits_as_bytes(unit, number, q); !bits.empty()) return Error{head + bits};
  if (!unit.empty() || unit_required) {
    Result<const Unit*> u = unit_find(unit, q, quoted);
    RETURN_IF_ERROR(u);
    factor = (*u)->factor;
  }
  const double value = number * factor;
  if (!(value <= q.max)) return Error{head + "out of range (" + q.what + "s go up to " + q.max_text + ")"};
  return value;
}

const Quantity& sizes() {
  static const Quantity q{"size",
                          {{"B", 1},
                           {"KB", 1e3},
                           {"MB", 1e6},
                           {"GB", 1e9},
                           {"TB", 1e12},
                           {"PB", 1e15},
                           {"EB", 1e18},
                           {"KiB", 1024.0},
                           {"MiB", 1048576.0},
                           {"GiB", 1073741824.0},
                           {"TiB", 1099511627776.0},
                           {"PiB", 1125899906842624.0}},
                          limits::kMaxBytes,
                          "1 EB",
                          true};
  return q;
}

const Quantity& rates() {
  static const Quantity q{"rate",
                          {{"bps", 1e-9 / 8},
                           {"Kbps", 1e-6 / 8},
                           {"Mbps", 1e-3 / 8},
                           {"Gbps", 1.0 / 8},
                           {"Tbps", 1e3 / 8},
                           {"Pbps", 1e6 / 8},
                           {"Gb/s", 1.0 / 8},
                           {"Tb/s", 1e3 / 8},
                           {"B/s", 1e-9},
                           {"KB/s", 1e-6},
                           {"MB/s", 1e-3},
                           {"GB/s", 1.0},
                           {"TB/s", 1e3},
                           {"GiB/s", 1.073741824},
                           {"MiB/s", 1.048576e-3}},
                          limits::kMaxRateGBps,
                          "8 Pbps (1e6 GB/s)"};
  return q;
}

const Quantity& durations() {
  static const Quantity q{
      "duration",
      {{"d", 86400}, {"h", 3600}, {"min", 60}, {"m", 60}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}},
      limits::kMaxSeconds,
      "1000 years"};
  return q;
}

}  // namespace

Result<double> parse_bytes(std::string_view text) { return parse_with(text, sizes(), false); }

Result<std::pair<double, double>> parse_bytes_range(std::string_view text) {
  size_t colon = text.find(':');
  if (colon == std::string::npos) return Error{"expected MIN:MAX such as 8B:16GiB, got '" + std::string(text) + "'"};
  Result<double> lo = parse_bytes(text.substr(0, colon)), hi = parse_bytes(text.substr(colon + 1));
  RETURN_IF_ERROR(lo);
  RETURN_IF_ERROR(hi);
  if (!(*lo >= 1) || *hi < *lo) return Error{"expected 1 <= MIN <= MAX, got '" + std::string(text) + "'"};
  return std::pair{*lo, *hi};
}

Result<double> parse_rate_GBps(std::string_view text) {
  Result<double> r = parse_with(text, rates(), true);
  if (r && *r <= 0) return Error{"invalid rate '" + std::string(text) + "': must be > 0"};
  if (r && *r < limits::kMinRateGBps) return Error{"invalid rate '" + std::string(text) + "': below 1 bps"};
  return r;
}

Result<double> parse_duration_s(std::string_view text) {
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
    Result<double> part = parse_with(rest.substr(0, letters), durations(), true);
    if (!part)
      return Error{part.error() +
                   (rest.size() == text.size() && letters == rest.size() ? "" : " in '" + std::string(text) + "'")};
    total += *part;
    rest.remove_prefix(letters);
  }
  if (total <= 0) return Error{"invalid duration '" + std::string(text) + "': must be > 0"};
  if (total > limits::kMaxSeconds)
    return Error{"invalid duration '" + std::string(text) + "': out of range (durations go up to 1000 years)"};
  return total;
}

std::string format_number(double value, int max_decimals) {
  // Large enough for any double in %f (309 digits) and its decimals.
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.*f", std::clamp(max_decimals, 0, 17), value);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

std::string format_exact(double value) {
  char buf[32];
  // Plain digits where they are short enough to read ("400", not "4e+02"), exponents beyond.
  const bool plain = std::abs(value) >= 1e-4 && std::abs(value) < 1e15;
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, value);
    if (plain && std::strchr(buf, 'e')) continue;
    if (std::strtod(buf, nullptr) == value || std::isnan(value)) break;
  }
  return buf;
}

std::string format_count(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -(n + 1) + uint64_t{1} : static_cast<uint64_t>(n));
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string format_duration(double seconds) {
  if (std::isnan(seconds)) return "unknown";
  if (seconds < 0) return "-" + format_duration(-seconds);
  // Past the limit no input can ask for; also keeps the integer arithmetic below from overflowing.
  if (seconds > limits::kMaxSeconds) return "more than 1000 years";
  // Each unit while the rounded value stays below the next one ("1000 ms" reads "1 s"), with
  // 3-4 significant digits as sizes have: 2.81 ms, 66.6 ms, 413.9 us, 80 ps (a byte at 100 Gbps,
  // which in microseconds would read 0). Zero stays "0 us".
  auto sig = [](double x) { return format_number(x, x < 100 ? 2 : 1); };
  static constexpr std::pair<double, const char*> kSmall[] = {
      {1e15, "fs"}, {1e12, "ps"}, {1e9, "ns"}, {1e6, "us"}, {1e3, "ms"}};
  for (const auto& [per_s, name] : kSmall)
    if ((seconds > 0 || per_s == 1e6) && std::stod(sig(seconds * per_s)) < 1000)
      return sig(seconds * per_s) + " " + name;
  if (std::stod(sig(seconds)) < 60) return sig(seconds) + " s";
  auto total = static_cast<long long>(std::llround(seconds));
  long long d = total / 86400, h = total % 86400 / 3600, m = total % 3600 / 60, s = total % 60;
  std::string out;
  auto add = [&out](long long n, const char* unit) {
    if (!out.empty()) out += ' ';
    out += std::to_string(n) + " " + unit;
  };
  // Zero parts say nothing: "1 h", "1 d 5 s".
  if (d) add(d, "d");
  if (h) add(h, "h");
  if (m) add(m, "min");
  if (s) add(s, "s");
  return out;
}

namespace {

struct Scale {
  const char* name;
  double factor;
};
constexpr Scale kDecimal[] = {{"EB", 1e18}, {"PB", 1e15}, {"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}};
constexpr Scale kBinary[] = {{"EiB", 1152921504606846976.0}, {"PiB", 1125899906842624.0}, {"TiB", 1099511627776.0},
                             {"GiB", 1073741824.0},          {"MiB", 1048576.0},          {"KiB", 1024.0}};

// The largest unit of `scales` that leaves a number of at least 1, shown with 3-4 significant
// digits (1.61 GB, 12.35 MB, 241.5 MiB), and whether the text is exact.
template <size_t N>
std::pair<std::string, bool> bytes_in(double bytes, const Scale (&scales)[N]) {
  for (const Scale& u : scales) {
    const double q = bytes / u.factor;
    if (q < 1) continue;
    const int decimals = q < 100 ? 2 : 1;
    std::string text = format_number(q, decimals);
    if (std::stod(text) >= 1000 && &u != &scales[0]) {  // 999.96 MB is 1 GB
      const Scale& up = *(&u - 1);
      return {format_number(bytes / up.factor, 2) + " " + up.name, false};
    }
    const double back = std::stod(text);
    return {text + " " + u.name, back == q};
  }
  return {format_number(bytes) + " B", true};
}

bool bytes_shown(double bytes) { return std::isfinite(bytes) && bytes >= 0; }

}  // namespace

std::string format_bytes(double bytes) {
  if (!bytes_shown(bytes)) return format_number(bytes) + " B";
  // Exact values win: 100 TB, then 16 GiB; else decimal, rounded.
  auto [dec, dec_exact] = bytes_in(bytes, kDecimal);
  if (dec_exact) return dec;
  auto [bin, bin_exact] = bytes_in(bytes, kBinary);
  return bin_exact ? bin : dec;
}

SizeUnits size_units_of(const std::vector<double>& sizes) {
  for (double b : sizes)
    if (!bytes_shown(b) || !bytes_in(b, kBinary).second) return SizeUnits::decimal;
  return SizeUnits::binary;
}

std::string format_bytes(double bytes, SizeUnits units) {
  if (!bytes_shown(bytes)) return format_number(bytes) + " B";
  return units == SizeUnits::binary ? bytes_in(bytes, kBinary).first : bytes_in(bytes, kDecimal).first;
}

std::string format_rate_gbit(double GBps) {
  const double bits = GBps * 8e9;
  if (!std::isfinite(bits) || bits < 1) return format_number(bits, 3) + " bps";
  // As format_bytes: the largest unit that leaves at least 1, 3-4 significant digits.
  static constexpr std::pair<const char*, double> units[] = {{"Pbps", 1e15}, {"Tbps", 1e12}, {"Gbps", 1e9},
                                                             {"Mbps", 1e6},  {"Kbps", 1e3},  {"bps", 1}};
  for (const auto& [name, f] : units)
    if (bits >= f || f == 1) {
      const double q = bits / f;
      return format_number(q, q < 100 ? 2 : 1) + " " + name;
    }
  return "";
}

std::string format_over_best(double value, double best) {
  if (value <= best * 1.0005) return "best";
  return "+" + format_number(100 * (value - best) / best, 1) + "%";
}

}  // namespace topoplan

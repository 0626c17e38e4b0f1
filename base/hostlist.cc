#include "base/hostlist.h"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace topoplan {
namespace {

// Host numbers fit 18 digits; longer runs of digits are not a range Slurm could print either.
constexpr size_t kMaxDigits = 18;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string padded(uint64_t value, size_t width) {
  std::string s = std::to_string(value);
  return s.size() < width ? std::string(width - s.size(), '0') + s : s;
}

struct Range {
  uint64_t first = 0, last = 0;
  size_t width = 0;  // of the first number: "001-010" pads to 3
};

// One bracket group's items, "001-004,9"; `at` is the group's offset in the whole text.
Result<std::vector<Range>> parse_group(std::string_view body, size_t at) {
  std::vector<Range> out;
  size_t pos = 0;
  auto where = [&](size_t i) { return "hostlist: column " + std::to_string(at + i + 1) + ": "; };
  auto number = [&](uint64_t& value, size_t& width) -> std::optional<Error> {
    const size_t start = pos;
    while (pos < body.size() && is_digit(body[pos])) ++pos;
    width = pos - start;
    if (width == 0)
      return Error{where(start) + "expected a number inside [...], got " +
                   (start < body.size() ? "'" + std::string(1, body[start]) + "'" : "the end of the group")};
    if (width > kMaxDigits)
      return Error{where(start) + "host number longer than " + std::to_string(kMaxDigits) + " digits"};
    value = std::stoull(std::string(body.substr(start, width)));
    return std::nullopt;
  };
  if (body.empty()) return Error{where(0) + "empty brackets"};
  while (pos <= body.size()) {
    Range r;
    size_t width_last = 0;
    const size_t item = pos;
    if (auto e = number(r.first, r.width)) return *e;
    r.last = r.first;
    if (pos < body.size() && body[pos] == '-') {
      ++pos;
      if (auto e = number(r.last, width_last)) return *e;
      if (r.last < r.first)
        return Error{where(item) + "range " + std::string(body.substr(item, pos - item)) + " runs backwards"};
    }
    out.push_back(r);
    if (pos == body.size()) break;
    if (body[pos] != ',')
      return Error{where(pos) + "expected ',' or ']' after a number, got '" + std::string(1, body[pos]) + "'"};
    ++pos;
    if (pos == body.size()) return Error{where(pos) + "expected a number after ','"};
  }
  return out;
}

// One comma-free entry, "rack[1-2]-n[01-04]": literal parts and bracket groups, expanded as a
// product with the leftmost group slowest.
Result<void> expand_entry(std::string_view entry, size_t at, std::vector<std::string>& out, size_t& chars) {
  struct Part {
    std::string literal;
    std::vector<Range> ranges;  // empty for a literal
    uint64_t count = 1;
  };
  std::vector<Part> parts;
  uint64_t total = 1;
  for (size_t i = 0; i < entry.size();) {
    if (entry[i] == ']') return Error{"hostlist: column " + std::to_string(at + i + 1) + ": ']' without '['"};
    if (entry[i] != '[') {
      size_t j = entry.find_first_of("[]", i);
      if (j == std::string_view::npos) j = entry.size();
      Part p;
      p.literal = std::string(entry.substr(i, j - i));
      if (size_t bad = p.literal.find_first_of(" \t\r\n"); bad != std::string::npos)
        return Error{"hostlist: column " + std::to_string(at + i + bad + 1) + ": host names have no spaces"};
      parts.push_back(std::move(p));
      i = j;
      continue;
    }
    const size_t close = entry.find(']', i);
    const size_t nested = entry.find('[', i + 1);
    if (close == std::string_view::npos)
      return Error{"hostlist: column " + std::to_string(at + i + 1) + ": '[' is never closed"};
    if (nested < close) return Error{"hostlist: column " + std::to_string(at + nested + 1) + ": brackets do not nest"};
    Result<std::vector<Range>> ranges = parse_group(entry.substr(i + 1, close - i - 1), at + i + 1);
    RETURN_IF_ERROR(ranges);
    Part p;
    p.count = 0;
    // Capped per range, so that many huge ranges cannot wrap the sum around to a small count.
    for (const Range& r : *ranges)
      p.count = std::min<uint64_t>(p.count + (r.last - r.first + 1), kHostlistMaxNames + 1);
    p.ranges = std::move(*ranges);
    if (p.count > kHostlistMaxNames || total * p.count > kHostlistMaxNames)
      return Error{"hostlist: '" + std::string(entry) + "' names more than " + std::to_string(kHostlistMaxNames) +
                   " hosts"};
    total *= p.count;
    parts.push_back(std::move(p));
    i = close + 1;
  }
  if (out.size() + total > kHostlistMaxNames)
    return Error{"hostlist: more than " + std::to_string(kHostlistMaxNames) + " hosts"};
  // Names, not only their count, are bounded: a long literal times a million numbers would be
  // gigabytes of names.
  size_t longest = 0;
  for (const Part& p : parts) {
    size_t width = p.literal.size();
    for (const Range& r : p.ranges) width = std::max({width, r.width, std::to_string(r.last).size()});
    longest += width;
  }
  if (longest > kHostlistMaxNameLength)
    return Error{"hostlist: column " + std::to_string(at + 1) + ": a host name of " + std::to_string(longest) +
                 " characters; names have at most " + std::to_string(kHostlistMaxNameLength)};
  chars += total * longest;
  if (chars > kHostlistMaxChars)
    return Error{"hostlist: expands to more than " + std::to_string(kHostlistMaxChars >> 20) + " MiB of host names"};
  // Odometer over the bracket groups, rightmost fastest.
  std::vector<size_t> range_at(parts.size(), 0);
  std::vector<uint64_t> value(parts.size(), 0);
  for (size_t k = 0; k < parts.size(); ++k)
    if (!parts[k].ranges.empty()) value[k] = parts[k].ranges[0].first;
  for (uint64_t n = 0; n < total; ++n) {
    std::string name;
    name.reserve(longest);
    for (size_t k = 0; k < parts.size(); ++k)
      name += parts[k].ranges.empty() ? parts[k].literal : padded(value[k], parts[k].ranges[range_at[k]].width);
    out.push_back(std::move(name));
    for (size_t k = parts.size(); k-- > 0;) {
      if (parts[k].ranges.empty()) continue;
      if (value[k] < parts[k].ranges[range_at[k]].last) {
        ++value[k];
        break;
      }
      range_at[k] = (range_at[k] + 1) % parts[k].ranges.size();
      value[k] = parts[k].ranges[range_at[k]].first;
      if (range_at[k] != 0) break;
    }
  }
  return {};
}

}  // namespace

Result<std::vector<std::string>> hostlist_expand(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0, depth = 0, chars = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] == '[') ++depth;
    if (i < text.size() && text[i] == ']' && depth > 0) --depth;
    if (i < text.size() && (text[i] != ',' || depth > 0)) continue;
    std::string_view entry = text.substr(start, i - start);
    size_t b = entry.find_first_not_of(" \t\r\n"), e = entry.find_last_not_of(" \t\r\n");
    if (b == std::string_view::npos)
      return Error{"hostlist: column " + std::to_string(start + 1) + ": empty host name" +
                   (text.empty() ? "" : " (between commas or at an end)")};
    RETURN_IF_ERROR(expand_entry(entry.substr(b, e - b + 1), start + b, out, chars));
    start = i + 1;
  }
  return out;
}

std::string hostlist_compress(const std::vector<std::string>& names) {
  struct Name {
    std::string prefix, digits;
    uint64_t value = 0;
  };
  auto split = [](const std::string& n) {
    size_t d = n.size();
    while (d > 0 && is_digit(n[d - 1])) --d;
    Name out{n.substr(0, d), n.substr(d)};
    if (out.digits.size() > kMaxDigits || out.digits.empty() || n.find_first_of("[],") != std::string::npos)
      return Name{n, "", 0};
    out.value = std::stoull(out.digits);
    return out;
  };
  std::string out;
  for (size_t i = 0; i < names.size();) {
    const Name first = split(names[i]);
    if (!out.empty()) out += ',';
    if (first.digits.empty()) {
      out += names[i++];
      continue;
    }
    // Names after i with the same prefix fold into one bracket group, ranges where they count up.
    std::string items;
    size_t groups = 0, j = i;
    while (j < names.size()) {
      const Name start = split(names[j]);
      if (start.digits.empty() || start.prefix != first.prefix) break;
      size_t k = j + 1;
      uint64_t last = start.value;
      for (; k < names.size(); ++k) {
        const Name n = split(names[k]);
        if (n.digits.empty() || n.prefix != first.prefix || n.value != last + 1 ||
            padded(n.value, start.digits.size()) != n.digits)
          break;
        last = n.value;
      }
      items += (groups++ ? "," : "") + start.digits;
      if (k - j > 1) items += "-" + padded(last, start.digits.size());
      j = k;
    }
    const bool single = groups == 1 && j == i + 1;
    out += single ? names[i] : first.prefix + "[" + items + "]";
    i = j;
  }
  return out;
}

}  // namespace topoplan

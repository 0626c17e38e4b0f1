#include "base/index_list.h"

#include <algorithm>
#include <charconv>
#include <string>

namespace topoplan {
namespace {

bool parse_int(std::string_view s, int* out) {
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size() && *out >= 0;
}

}  // namespace

Result<std::vector<int>> parse_index_list(std::string_view text, int limit) {
  std::vector<int> out;
  std::vector<char> seen(static_cast<size_t>(std::max(limit, 0)), 0);
  if (text.empty()) return Error{"expected indices such as 0-7,12, got an empty list"};
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string_view item =
        text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    const std::string quoted = "'" + std::string(item) + "'";
    size_t dash = item.find('-');
    int lo = 0, hi = 0;
    bool ok = dash == std::string_view::npos
                  ? parse_int(item, &lo) && (hi = lo, true)
                  : parse_int(item.substr(0, dash), &lo) && parse_int(item.substr(dash + 1), &hi);
    if (!ok) return Error{"expected an index or a range such as 4-7, got " + quoted};
    if (hi < lo) return Error{"range " + quoted + " runs backwards"};
    if (hi >= limit)
      return Error{"index " + std::to_string(hi) + " in " + quoted + " is out of range: there are " +
                   std::to_string(limit) + " (0-" + std::to_string(limit - 1) + ")"};
    for (int i = lo; i <= hi; ++i) {
      if (seen[static_cast<size_t>(i)]) return Error{"index " + std::to_string(i) + " is listed twice"};
      seen[static_cast<size_t>(i)] = 1;
      out.push_back(i);
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string format_index_list(std::vector<int> indices) {
  std::sort(indices.begin(), indices.end());
  std::string out;
  for (size_t i = 0; i < indices.size();) {
    size_t j = i;
    while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(indices[i]) + (j > i ? "-" + std::to_string(indices[j]) : "");
    i = j + 1;
  }
  return out;
}

}  // namespace topoplan

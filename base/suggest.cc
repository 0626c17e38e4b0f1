#include "base/suggest.h"

#include <algorithm>
#include <cstdint>

namespace topoplan {
namespace {

constexpr size_t kLongestTypo = 256;

// Optimal string alignment distance: a swap of two neighbours ("tpoo" for "topo") costs one.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::string suggest_closest(std::string_view typed, const std::vector<std::string>& candidates) {
  // Nobody mistypes a name this long; and the distance is quadratic in it, over every candidate.
  if (typed.size() > kLongestTypo) return "";
  // Accept up to a third of the word mistyped, as ninja does for its tools; and a single edit
  // when only one candidate is that close, so two-letter names ("dq" for "dp") get a hint too.
  size_t best = SIZE_MAX;
  int at_best = 0;
  std::string found;
  for (const auto& c : candidates) {
    // The distance is at least the difference in length: skip the table when that already loses.
    size_t gap = c.size() > typed.size() ? c.size() - typed.size() : typed.size() - c.size();
    if (gap > best || gap > typed.size() / 3 + 1) continue;
    size_t d = edit_distance(typed, c);
    if (d < best) {
      best = d;
      found = c;
      at_best = 1;
    } else if (d == best && c != found) {
      ++at_best;
    }
  }
  if (best < typed.size() / 3 + 1 || (best == 1 && at_best == 1)) return found;
  return "";
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates) {
  std::string s = suggest_closest(typed, candidates);
  return s.empty() ? "" : ", did you mean '" + s + "'?";
}

std::string names_list(const std::vector<std::string>& names, std::string_view last) {
  std::string list;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) list += i + 1 == names.size() ? last : ", ";
    list += names[i];
  }
  return list;
}

std::string unknown_name(std::string_view what, std::string_view typed, const std::vector<std::string>& names,
                         std::string_view names_are) {
  return "unknown " + std::string(what) + " '" + std::string(typed) + "'" + did_you_mean(typed, names) + " (" +
         std::string(names_are) + ": " + names_list(names) + ")";
}

}  // namespace topoplan

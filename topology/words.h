// Words of a line of another tool's text output (NCCL's log, nccl-tests' tables, port counters):
// spaces, tabs and every other control character (a CR, a NUL in a damaged file) separate them,
// so no word holds one and what is printed back reads as the same words.
#pragma once

#include <string_view>
#include <vector>

namespace topoplan {

inline bool blank(char c) { return static_cast<unsigned char>(c) <= ' ' || c == '\x7f'; }

using Words = std::vector<std::string_view>;

inline Words words_of(std::string_view s) {
  Words w;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && blank(s[i])) ++i;
    const size_t begin = i;
    while (i < s.size() && !blank(s[i])) ++i;
    if (i > begin) w.push_back(s.substr(begin, i - begin));
  }
  return w;
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace topoplan

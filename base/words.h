// Words of a line of another tool's text output (NCCL's log, nccl-tests' tables, port counters):
// spaces, tabs and every other control character (a CR, a NUL in a damaged file) separate them,
// so no word holds one and what is printed back reads as the same words. And words of topoplan's
// own text: a count with its noun.
#pragma once

#include <cctype>
#include <cstdint>
#include <string>
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

inline std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "1 host", "2 hosts", "0 hosts"; `many` where adding an s is wrong ("1 series", "2 series").
inline std::string counted(int64_t n, std::string_view one, std::string_view many = {}) {
  std::string out = std::to_string(n) + " ";
  if (n == 1) return out.append(one);
  if (!many.empty()) return out.append(many);
  return out.append(one).append("s");
}

}  // namespace topoplan

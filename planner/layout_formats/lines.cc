#include <algorithm>
#include <charconv>
#include <sstream>

#include "base/suggest.h"
#include "planner/layout_formats/formats.h"

namespace topoplan {

std::string LayoutLines::place(int rank, VertexId gpu, int line) {
  const size_t r = static_cast<size_t>(rank);
  if (r >= gpus.size()) {
    gpus.resize(r + 1, kNoVertex);
    lines.resize(r + 1, 0);
  }
  if (gpus[r] != kNoVertex)
    return "rank " + std::to_string(rank) + " is placed twice (line " + std::to_string(lines[r]) + " and " +
           std::to_string(line) + ")";
  gpus[r] = gpu;
  lines[r] = line;
  return "";
}

std::string RankCap::text() const {
  if (!of_job) return "the cluster has " + std::to_string(ranks) + " GPUs";
  return "the job has " + std::to_string(ranks) + " ranks (0-" + std::to_string(ranks - 1) + ")";
}

std::vector<LayoutWord> layout_words(std::string_view line) {
  std::vector<LayoutWord> words;
  for (size_t b = line.find_first_not_of(" \t\r"); b != std::string_view::npos;
       b = line.find_first_not_of(" \t\r", b)) {
    const size_t e = std::min(line.find_first_of(" \t\r", b), line.size());
    words.push_back({line.substr(b, e - b), b + 1});
    b = e;
  }
  return words;
}

std::string lines_each(const std::string& text,
                       const std::function<std::string(int, std::string_view, const std::vector<LayoutWord>&)>& each) {
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    const std::vector<LayoutWord> words = layout_words(line);
    if (words.empty()) continue;
    if (std::string e = each(n, line, words); !e.empty()) return e;
  }
  return "";
}

std::string layout_no_host(const Cluster& c, const std::string& name) {
  std::vector<std::string> names;
  for (const Host& h : c.hosts()) names.push_back(h.name);
  return "no host '" + name + "'" + did_you_mean(name, names);
}

int layout_number(std::string_view s) {
  int v = -1;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || s[0] == '-' || s[0] == '+' || ec != std::errc() || end != s.data() + s.size()) return -1;
  return v;
}

}  // namespace topoplan

#include "topology/gpu_named.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <vector>

#include "base/suggest.h"

namespace topoplan {

Result<VertexId> gpu_named(const Cluster& c, const std::string& text) {
  if (!text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char ch) { return std::isdigit(ch); })) {
    uint64_t i = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
    if (ec != std::errc() || end != text.data() + text.size() || i >= c.gpus().size())
      return Error{"GPU index " + text + " is out of range: the cluster has " + std::to_string(c.gpus().size()) +
                   " GPUs"};
    return c.gpus()[i];
  }
  if (auto v = c.find(text)) return *v;
  std::vector<std::string> names;
  for (VertexId g : c.gpus()) names.push_back(c.device(g).name);
  return Error{"no GPU '" + text + "'" + did_you_mean(text, names)};
}

}  // namespace topoplan

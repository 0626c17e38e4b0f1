// The per-rank environment `plan --emit env` writes (ranks.env): lines `RANK HOST NAME=VALUE...`,
// the rank's GPU in CUDA_VISIBLE_DEVICES, its CUDA ordinal alone. The other variables (NCCL_IB_HCA)
// choose a NIC, not a placement, and are not read.
#include "planner/layout_formats/formats.h"

namespace topoplan {
namespace {

constexpr std::string_view kDevices = "CUDA_VISIBLE_DEVICES=";

}  // namespace

bool ranks_env_detect(const std::vector<LayoutWord>& first) {
  return first.size() >= 2 && layout_number(first[0].text) >= 0;
}

Result<LayoutLines> ranks_env_parse(const std::string& text, const std::string& where, const Cluster& c,
                                    const RankCap& cap) {
  LayoutLines out;
  std::string error =
      lines_each(text, [&](int n, std::string_view, const std::vector<LayoutWord>& words) -> std::string {
        const std::string at = where + ":" + std::to_string(n) + ":";
        auto column = [&](size_t w, size_t offset = 0) { return at + std::to_string(words[w].column + offset) + ": "; };
        const int rank = layout_number(words[0].text);
        if (rank < 0 || words.size() < 2)
          return column(0) + "expected 'RANK HOST CUDA_VISIBLE_DEVICES=N ...', got '" + std::string(words[0].text) +
                 "'";
        if (rank >= cap.ranks) return column(0) + "rank " + std::to_string(rank) + ": " + cap.text();
        const std::string host(words[1].text);
        std::optional<int> h = c.host_index(host);
        if (!h) return column(1) + layout_no_host(c, host);
        const std::vector<VertexId>& gpus = c.hosts()[static_cast<size_t>(*h)].gpus;
        int ordinal = -1;
        for (size_t i = 2; i < words.size(); ++i) {
          const std::string_view w = words[i].text;
          if (w.find('=') == std::string_view::npos)
            return column(i) + "expected NAME=VALUE, got '" + std::string(w) + "'";
          if (!w.starts_with(kDevices)) continue;
          const std::string_view value = w.substr(kDevices.size());
          ordinal = layout_number(value);
          if (ordinal < 0)
            return column(i, kDevices.size()) +
                   "CUDA_VISIBLE_DEVICES: expected the rank's one GPU as a CUDA ordinal, got '" + std::string(value) +
                   "'";
          if (ordinal >= static_cast<int>(gpus.size()))
            return column(i, kDevices.size()) + host + " has " + std::to_string(gpus.size()) + " GPUs (0-" +
                   std::to_string(gpus.size() - 1) + "), got " + std::to_string(ordinal);
        }
        if (ordinal < 0)
          return column(0) + "rank " + std::to_string(rank) + " has no CUDA_VISIBLE_DEVICES=N, which names its GPU";
        if (std::string e = out.place(rank, gpus[static_cast<size_t>(ordinal)], n); !e.empty()) return column(0) + e;
        return "";
      });
  if (!error.empty()) return Error{error};
  return out;
}

}  // namespace topoplan

// The torchrun commands `plan --emit torchrun` writes (torchrun.txt): a line per host,
// `HOST: [CUDA_VISIBLE_DEVICES=LIST] torchrun --nnodes=N --node-rank=K --nproc-per-node=P ...`.
// torchrun gives node K the ranks K x P to K x P + P - 1 and runs local rank k on CUDA device k,
// the k-th entry of CUDA_VISIBLE_DEVICES (all devices in order when it is not set).
#include <optional>

#include "planner/layout_formats/formats.h"

namespace topoplan {
namespace {

constexpr std::string_view kDevices = "CUDA_VISIBLE_DEVICES=";

bool is_torchrun(std::string_view w) {
  return w == "torchrun" || w.ends_with("/torchrun") || w == "torch.distributed.run";
}

// The value of `--name=V` or `--name V` at words[i] for any spelling in `names` (torchrun takes
// '-' and '_'), advancing i past it; nullopt when words[i] is another word.
std::optional<std::string_view> option(const std::vector<LayoutWord>& words, size_t& i,
                                       std::initializer_list<std::string_view> names) {
  const std::string_view w = words[i].text;
  for (std::string_view name : names) {
    if (w == name && i + 1 < words.size()) return words[++i].text;
    if (w.starts_with(name) && w.size() > name.size() && w[name.size()] == '=') return w.substr(name.size() + 1);
  }
  return std::nullopt;
}

}  // namespace

bool torchrun_detect(const std::vector<LayoutWord>& first) {
  if (first.size() < 2 || !first[0].text.ends_with(":")) return false;
  for (const LayoutWord& w : first)
    if (is_torchrun(w.text)) return true;
  return false;
}

Result<LayoutLines> torchrun_parse(const std::string& text, const std::string& where, const Cluster& c,
                                   const RankCap& cap) {
  LayoutLines out;
  int nnodes_seen = -1, nproc_seen = -1;
  std::string error =
      lines_each(text, [&](int n, std::string_view, const std::vector<LayoutWord>& words) -> std::string {
        const std::string at = where + ":" + std::to_string(n) + ":";
        auto column = [&](size_t w, size_t offset = 0) { return at + std::to_string(words[w].column + offset) + ": "; };
        if (!words[0].text.ends_with(":"))
          return column(0) +
                 "expected 'HOST: [CUDA_VISIBLE_DEVICES=LIST] torchrun --nnodes=N --node-rank=K --nproc-per-node=P', "
                 "got '" +
                 std::string(words[0].text) + "'";
        const std::string host(words[0].text.substr(0, words[0].text.size() - 1));
        std::optional<int> h = c.host_index(host);
        if (!h) return column(0) + layout_no_host(c, host);
        const std::vector<VertexId>& gpus = c.hosts()[static_cast<size_t>(*h)].gpus;
        std::vector<int> devices;  // empty: all, in order
        size_t devices_at = 0;
        int nnodes = -1, node_rank = -1, nproc = -1;
        bool launcher = false;
        for (size_t i = 1; i < words.size(); ++i) {
          const std::string_view w = words[i].text;
          if (!launcher && w.starts_with(kDevices)) {
            devices_at = i;
            std::string_view list = w.substr(kDevices.size());
            for (size_t b = 0; b <= list.size();) {
              const size_t e = std::min(list.find(',', b), list.size());
              const int d = layout_number(list.substr(b, e - b));
              if (d < 0 || d >= static_cast<int>(gpus.size()))
                return column(i, kDevices.size() + b) + "CUDA_VISIBLE_DEVICES: expected CUDA ordinals of " + host +
                       "'s " + std::to_string(gpus.size()) + " GPUs (0-" + std::to_string(gpus.size() - 1) +
                       "), got '" + std::string(list.substr(b, e - b)) + "'";
              devices.push_back(d);
              b = e + 1;
            }
            continue;
          }
          launcher |= is_torchrun(w);
          if (!launcher) continue;
          size_t at_word = i;
          auto number = [&](std::optional<std::string_view> v, const char* what, int* to) -> std::string {
            *to = v ? layout_number(*v) : -1;
            if (*to < 0 || (*to == 0 && std::string_view(what) != "--node-rank"))
              return column(at_word) + what + ": expected a " +
                     (std::string_view(what) == "--node-rank" ? "whole" : "positive") + " number, got '" +
                     std::string(v ? *v : "") + "'" +
                     (v && v->find(':') != std::string_view::npos
                          ? " (an elastic MIN:MAX range places no rank; give one number)"
                          : "");
            return "";
          };
          std::string e;
          if (auto nodes = option(words, i, {"--nnodes"}))
            e = number(nodes, "--nnodes", &nnodes);
          else if (auto node = option(words, i, {"--node-rank", "--node_rank"}))
            e = number(node, "--node-rank", &node_rank);
          else if (auto procs = option(words, i, {"--nproc-per-node", "--nproc_per_node"}))
            e = number(procs, "--nproc-per-node", &nproc);
          if (!e.empty()) return e;
        }
        if (!launcher) return column(0) + "no torchrun on the line";
        for (auto [value, what] :
             {std::pair{nnodes, "--nnodes"}, {node_rank, "--node-rank"}, {nproc, "--nproc-per-node"}})
          if (value < 0) return column(0) + "torchrun has no " + std::string(what) + ", which places the host's ranks";
        if (nnodes_seen >= 0 && (nnodes != nnodes_seen || nproc != nproc_seen))
          return column(0) + "--nnodes " + std::to_string(nnodes) + " --nproc-per-node " + std::to_string(nproc) +
                 ", the lines before say " + std::to_string(nnodes_seen) + " and " + std::to_string(nproc_seen);
        nnodes_seen = nnodes;
        nproc_seen = nproc;
        if (node_rank >= nnodes)
          return column(0) + "--node-rank " + std::to_string(node_rank) + " of --nnodes " + std::to_string(nnodes) +
                 " (0-" + std::to_string(nnodes - 1) + ")";
        if (devices.empty())
          for (int d = 0; d < static_cast<int>(gpus.size()); ++d) devices.push_back(d);
        if (static_cast<int>(devices.size()) < nproc)
          return column(devices_at) + std::to_string(nproc) + " local ranks, " + std::to_string(devices.size()) +
                 " GPUs in CUDA_VISIBLE_DEVICES" + (devices_at ? "" : " (" + host + "'s)");
        const int64_t first = int64_t{node_rank} * nproc;
        if (first + nproc > cap.ranks)
          return column(0) + "node " + std::to_string(node_rank) + " runs ranks " + std::to_string(first) + "-" +
                 std::to_string(first + nproc - 1) + ", " + cap.text();
        for (int k = 0; k < nproc; ++k)
          if (std::string e =
                  out.place(static_cast<int>(first) + k, gpus[static_cast<size_t>(devices[static_cast<size_t>(k)])], n);
              !e.empty())
            return column(0) + e;
        return "";
      });
  if (!error.empty()) return Error{error};
  // Every node of --nnodes has its line, else its ranks would be missing from the layout.
  if (nnodes_seen > 0 && static_cast<int64_t>(out.gpus.size()) < int64_t{nnodes_seen} * nproc_seen) {
    std::string missing;
    for (int node = 0; node < nnodes_seen; ++node)
      if (static_cast<size_t>(node * nproc_seen) >= out.gpus.size() ||
          out.gpus[static_cast<size_t>(node * nproc_seen)] == kNoVertex)
        missing += (missing.empty() ? "" : ", ") + std::to_string(node);
    return Error{where + ": --nnodes " + std::to_string(nnodes_seen) + ", but no line runs --node-rank " + missing};
  }
  return out;
}

}  // namespace topoplan

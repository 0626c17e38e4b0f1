// A host list in rank order: lines `HOSTS [slots=N]`, HOSTS a hostlist expression
// (base/hostlist.h), each name one rank as in SLURM_HOSTFILE, or with slots=N, N consecutive
// ranks on each name in turn, as Open MPI maps a hostfile by slot. A host's ranks take its GPUs in
// order, across lines.
#include <algorithm>

#include "base/hostlist.h"
#include "base/suggest.h"
#include "planner/layout_formats/formats.h"

namespace topoplan {
namespace {

// slots=N from the words after the hosts: N, or 0 when the line has none (one rank per name).
Result<int> slots_of(const std::vector<LayoutWord>& words, const std::string& at) {
  int slots = 0;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string_view w = words[i].text;
    const std::string here = at + ":" + std::to_string(words[i].column) + ": ";
    const size_t eq = w.find('=');
    const std::string key(w.substr(0, eq));
    if (eq == std::string_view::npos)
      return Error{here + "expected slots=N after the hosts, got '" + key +
                   "' (a line is HOSTS [slots=N]; hosts on one line are separated by commas)"};
    if (key != "slots")
      return Error{here + "unknown key '" + key + "'" + did_you_mean(key, {"slots"}) + " (a line is HOSTS [slots=N])"};
    if (slots > 0) return Error{here + "slots is given twice"};
    const std::string_view value = w.substr(eq + 1);
    slots = layout_number(value);
    if (slots <= 0)
      return Error{at + ":" + std::to_string(words[i].column + eq + 1) + ": slots: expected a positive integer, got '" +
                   std::string(value) + "'"};
  }
  return slots;
}

}  // namespace

Result<LayoutLines> host_list_parse(const std::string& text, const std::string& where, const Cluster& c,
                                    const RankCap& cap) {
  LayoutLines out;
  std::vector<int> used(c.hosts().size(), 0);
  std::string error =
      lines_each(text, [&](int n, std::string_view line, const std::vector<LayoutWord>& words) -> std::string {
        const std::string at = where + ":" + std::to_string(n);
        Result<int> slots = slots_of(words, at);
        if (!slots) return slots.error();
        // Expanded from the line's start, so the hostlist's columns are the line's.
        Result<std::vector<std::string>> names =
            hostlist_expand(line.substr(0, words[0].column - 1 + words[0].text.size()));
        if (!names) return at + ": " + names.error();
        const int per_name = std::max(*slots, 1);
        // Checked before placing, so a long expansion or a large slots= fails without building ranks.
        const int64_t first = static_cast<int64_t>(out.gpus.size());
        const int64_t last = first + static_cast<int64_t>(names->size()) * per_name - 1;
        if (last >= cap.ranks)
          return at + ": the line places " +
                 (first == last ? "rank " + std::to_string(first)
                                : "ranks " + std::to_string(first) + "-" + std::to_string(last)) +
                 ", " + cap.text();
        for (const std::string& host : *names) {
          std::optional<int> h = c.host_index(host);
          if (!h) return at + ": " + layout_no_host(c, host);
          const std::vector<VertexId>& hg = c.hosts()[static_cast<size_t>(*h)].gpus;
          int& k = used[static_cast<size_t>(*h)];
          const int total = static_cast<int>(hg.size());
          if (*slots == 0 && k == total)
            return at + ": " + host + " is listed more often than it has GPUs (" + std::to_string(total) + ")";
          if (k + per_name > total)
            return at + ": slots=" + std::to_string(*slots) + " is more than the " +
                   (k == 0
                        ? std::to_string(total) + " GPUs of " + host
                        : std::to_string(total - k) + " GPUs " + host + " has left (of " + std::to_string(total) + ")");
          for (int j = 0; j < per_name; ++j)
            out.place(static_cast<int>(out.gpus.size()), hg[static_cast<size_t>(k++)], n);
        }
        return "";
      });
  if (!error.empty()) return Error{error};
  return out;
}

}  // namespace topoplan

// Open MPI's rankfile as `plan --emit ompi-rankfile` writes it: lines `rank N=HOST slot=LIST`
// (mpirun(1), "Rankfiles"). The slot list binds CPU cores, not a GPU: Open MPI numbers the ranks
// of a node in rank order (OMPI_COMM_WORLD_LOCAL_RANK), so, as in a host list, the k-th rank of a
// host runs on its GPU k.
#include "base/suggest.h"
#include "planner/layout_formats/formats.h"

namespace topoplan {

bool ompi_rankfile_detect(const std::vector<LayoutWord>& first) {
  return first.size() >= 2 && first[0].text == "rank" && first[1].text.find('=') != std::string_view::npos;
}

Result<LayoutLines> ompi_rankfile_parse(const std::string& text, const std::string& where, const Cluster& c,
                                        const RankCap& cap) {
  std::vector<int> host_of, line_of;  // by rank; -1 where no line names it
  std::string error =
      lines_each(text, [&](int n, std::string_view, const std::vector<LayoutWord>& words) -> std::string {
        const std::string at = where + ":" + std::to_string(n) + ":";
        auto column = [&](size_t w, size_t offset = 0) { return at + std::to_string(words[w].column + offset) + ": "; };
        const size_t eq = words.size() >= 2 ? words[1].text.find('=') : std::string_view::npos;
        if (words[0].text != "rank" || eq == std::string_view::npos)
          return column(0) + "expected 'rank N=HOST slot=LIST', got '" + std::string(words[0].text) +
                 "' (a rankfile has one such line per rank)";
        const std::string_view number = words[1].text.substr(0, eq), host = words[1].text.substr(eq + 1);
        const int rank = layout_number(number);
        if (rank < 0) return column(1) + "rank: expected a whole number, got '" + std::string(number) + "'";
        if (rank >= cap.ranks) return column(1) + "rank " + std::to_string(rank) + ": " + cap.text();
        if (host.starts_with("+"))
          return column(1, eq + 1) + "'" + std::string(host) +
                 "' is a host relative to the allocation (Open MPI's +nN); name the host";
        std::optional<int> h = c.host_index(std::string(host));
        if (!h) return column(1, eq + 1) + layout_no_host(c, std::string(host));
        for (size_t i = 2; i < words.size(); ++i) {
          const std::string_view w = words[i].text;
          const std::string key(w.substr(0, w.find('=')));
          if (key != "slot")
            return column(i) + "unknown key '" + key + "'" + did_you_mean(key, {"slot"}) +
                   " (a line is rank N=HOST slot=LIST)";
        }
        if (static_cast<size_t>(rank) >= host_of.size()) {
          host_of.resize(static_cast<size_t>(rank) + 1, -1);
          line_of.resize(static_cast<size_t>(rank) + 1, 0);
        }
        if (host_of[static_cast<size_t>(rank)] >= 0)
          return column(1) + "rank " + std::to_string(rank) + " is placed twice (line " +
                 std::to_string(line_of[static_cast<size_t>(rank)]) + " and " + std::to_string(n) + ")";
        host_of[static_cast<size_t>(rank)] = *h;
        line_of[static_cast<size_t>(rank)] = n;
        return "";
      });
  if (!error.empty()) return Error{error};
  // Local ranks in rank order, whatever the order of the lines.
  LayoutLines out;
  std::vector<int> used(c.hosts().size(), 0);
  for (size_t r = 0; r < host_of.size(); ++r) {
    if (host_of[r] < 0) continue;
    const Host& h = c.hosts()[static_cast<size_t>(host_of[r])];
    int& k = used[static_cast<size_t>(host_of[r])];
    if (k == static_cast<int>(h.gpus.size()))
      return Error{where + ":" + std::to_string(line_of[r]) + ": rank " + std::to_string(r) +
                   " is one rank more than " + h.name + " has GPUs (" + std::to_string(h.gpus.size()) + ")"};
    out.place(static_cast<int>(r), h.gpus[static_cast<size_t>(k++)], line_of[r]);
  }
  return out;
}

}  // namespace topoplan

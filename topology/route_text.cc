#include "topology/route_text.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <unordered_map>

#include "base/hostlist.h"
#include "base/units.h"

namespace topoplan {
namespace {

// "spine10" after "spine9": names by prefix, then by their numeric tail.
bool natural_less(const std::string& a, const std::string& b) {
  auto split = [](const std::string& s) {
    size_t d = s.size();
    while (d > 0 && std::isdigit(static_cast<unsigned char>(s[d - 1]))) --d;
    return std::pair{s.substr(0, d), s.substr(d)};
  };
  auto [pa, na] = split(a);
  auto [pb, nb] = split(b);
  if (pa != pb) return pa < pb;
  if (na.size() != nb.size()) return na.size() < nb.size();
  return na < nb;
}

std::string names_text(const std::set<std::string>& names) {
  std::vector<std::string> sorted(names.begin(), names.end());
  std::sort(sorted.begin(), sorted.end(), natural_less);
  return hostlist_compress(sorted);
}

std::string range_text(double lo, double hi, int decimals) {
  return lo == hi ? format_number(lo, decimals) : format_number(lo, decimals) + "-" + format_number(hi, decimals);
}

std::string hop_line(const Cluster& c, const Hop& h) {
  const Link& l = c.link(h.edge);
  std::string s =
      "  " + c.edge_name(h.edge) + "  " + std::string(to_string(l.kind)) + " " + format_number(l.bw_GBps, 2) + " GB/s";
  if (h.share < 1) s += "  share " + format_number(h.share, 4);
  return s + "\n";
}

}  // namespace

std::string route_text(const Cluster& c, const Route& r, bool all) {
  // A hop's stage is how many hops precede it on the longest way from the source: hops are in
  // path order, but merged ECMP fans can list a later stage's edge early, so repeat to a fixpoint.
  std::unordered_map<VertexId, size_t> depth{{r.src, 0}};
  for (bool changed = true; changed;) {
    changed = false;
    for (const Hop& h : r.hops) {
      auto from = depth.find(c.source(h.edge));
      if (from == depth.end()) continue;
      size_t& to = depth[c.target(h.edge)];
      if (to < from->second + 1 && from->second + 1 <= r.hops.size()) {
        to = from->second + 1;
        changed = true;
      }
    }
  }
  std::map<size_t, std::vector<const Hop*>> stages;
  for (const Hop& h : r.hops) stages[depth[c.source(h.edge)]].push_back(&h);
  const bool fans_out = std::any_of(stages.begin(), stages.end(), [](const auto& s) { return s.second.size() > 1; });
  std::string out;
  if (all || !fans_out) {
    for (const Hop& h : r.hops) out += hop_line(c, h);
    return out;
  }
  for (const auto& [stage, hops] : stages) {
    if (hops.size() == 1) {
      out += hop_line(c, *hops[0]);
      continue;
    }
    std::set<std::string> from, to, kinds;
    double bw_lo = 1e300, bw_hi = 0, share_lo = 1e300, share_hi = 0;
    for (const Hop* h : hops) {
      const Link& l = c.link(h->edge);
      from.insert(c.device(c.source(h->edge)).name);
      to.insert(c.device(c.target(h->edge)).name);
      kinds.insert(std::string(to_string(l.kind)));
      bw_lo = std::min(bw_lo, l.bw_GBps);
      bw_hi = std::max(bw_hi, l.bw_GBps);
      share_lo = std::min(share_lo, h->share);
      share_hi = std::max(share_hi, h->share);
    }
    std::string kind_list;
    for (const std::string& k : kinds) kind_list += (kind_list.empty() ? "" : "/") + k;
    out += "  " + names_text(from) + " -> " + names_text(to) + "  " + kind_list + " " + range_text(bw_lo, bw_hi, 2) +
           " GB/s, " + std::to_string(hops.size()) + " links, share " + range_text(share_lo, share_hi, 4) + " each\n";
  }
  out += "  (one line per stage of the equal-cost paths; --all lists every hop)\n";
  return out;
}

}  // namespace topoplan

#include "planner/link_use.h"

#include <algorithm>
#include <unordered_set>

#include "base/sort_unique.h"
#include "planner/group_ref.h"
#include "planner/score.h"

namespace topoplan {

std::unordered_map<EdgeId, PhaseBytes> link_phase_bytes(const ScoreState& state) {
  std::unordered_map<EdgeId, PhaseBytes> out;
  for (size_t i = 0; i < state.item_count(); ++i) {
    if (state.item_groups(i).empty()) continue;
    const TrafficItem& it = state.traffic().items[i];
    const LinkLoad& load = state.item_load(i);
    for (EdgeId e : load.loaded()) out[e][static_cast<size_t>(it.phase)] += load.bytes(e) * it.bytes * it.calls;
  }
  return out;
}

PhaseRates phase_rates(const PhaseBytes& bytes, const std::array<double, kPhases>& phase_us) {
  PhaseRates out;
  for (size_t p = 0; p < kPhases; ++p) {
    out.GBps[p] = phase_us[p] > 0 ? bytes[p] / (phase_us[p] * 1e3) : 0;
    if (out.GBps[p] > out.peak_GBps) {
      out.peak_GBps = out.GBps[p];
      out.peak_phase = static_cast<Phase>(p);
    }
  }
  return out;
}

std::unordered_map<EdgeId, std::vector<LinkUser>> link_users(const ScoreState& state, const Router& router,
                                                             const std::vector<EdgeId>& edges) {
  const std::unordered_set<EdgeId> wanted(edges.begin(), edges.end());
  std::unordered_map<uint32_t, std::vector<EdgeId>> segment_hits;  // segment -> the wanted edges on it
  std::unordered_map<EdgeId, std::vector<LinkUser>> out;
  std::vector<EdgeId> hit;
  for (size_t i = 0; i < state.item_count(); ++i) {
    const size_t groups = state.item_groups(i).size();
    std::unordered_map<EdgeId, std::vector<int>> lists;
    for (size_t g = 0; g < groups; ++g) {
      const Touched& t = state.item_touched(i, g);
      hit.clear();
      for (EdgeId e : t.edges)
        if (wanted.count(e)) hit.push_back(e);
      for (uint32_t seg : t.segments) {
        auto [it, fresh] = segment_hits.try_emplace(seg);
        if (fresh)
          for (const Hop& h : *router.segment(seg).hops)
            if (wanted.count(h.edge)) it->second.push_back(h.edge);
        hit.insert(hit.end(), it->second.begin(), it->second.end());
      }
      for (EdgeId e : hit) lists[e].push_back(state.list_index(i, g));
    }
    for (auto& [e, l] : lists) {
      sort_unique(l);
      for (int k : l) out[e].push_back({i, k});
    }
  }
  return out;
}

std::string link_user_text(const ScoreState& st, const LinkUser& u) {
  const TrafficItem& it = st.traffic().items[u.item];
  return group_ref_text(it.group, u.list_index) + " " + std::string(to_string(it.op)) + " (" + it.what + ")";
}

}  // namespace topoplan

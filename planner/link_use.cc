#include "planner/link_use.h"

#include <algorithm>

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

std::vector<LinkUser> link_users(const ScoreState& state, EdgeId e) {
  std::vector<LinkUser> out;
  for (size_t i = 0; i < state.item_count(); ++i) {
    if (state.item_groups(i).empty() || state.item_load(i).bytes(e) <= 0) continue;
    std::vector<int> lists;
    for (size_t g : state.groups_loading(i, e)) lists.push_back(state.list_index(i, g));
    std::sort(lists.begin(), lists.end());
    lists.erase(std::unique(lists.begin(), lists.end()), lists.end());
    for (int k : lists) out.push_back({i, k});
  }
  return out;
}

}  // namespace topoplan

// What a scored job puts on a link: its bytes per step in each phase, and the groups whose
// transfers cross it. For reports that lay the job's links beside something else (a transfer over
// the DCI, port counters).
#pragma once

#include <array>
#include <string>
#include <unordered_map>
#include <vector>

#include "planner/score_state.h"

namespace topoplan {

using PhaseBytes = std::array<double, kPhases>;

// Bytes per step in each phase on every loaded direction, counted as score counts a link's: each
// item's bytes on it per byte moved, times its size and calls.
std::unordered_map<EdgeId, PhaseBytes> link_phase_bytes(const ScoreState& state);

// Bytes per second in each phase's window (phase_durations_us), and the busiest phase.
struct PhaseRates {
  std::array<double, kPhases> GBps{};
  Phase peak_phase = Phase::forward;
  double peak_GBps = 0;
};
PhaseRates phase_rates(const PhaseBytes& bytes, const std::array<double, kPhases>& phase_us);

// A group loading a link: the item and the group's index in its token's list (explain --group).
struct LinkUser {
  size_t item = 0;
  int list_index = 0;
};
// Every group whose transfers cross each of `edges`, by item then list index: one pass over the
// groups' routes for all the edges (a report flags thousands of links on a large cluster).
std::unordered_map<EdgeId, std::vector<LinkUser>> link_users(const ScoreState& state, const Router& router,
                                                             const std::vector<EdgeId>& edges);
// "dp:3 reduce_scatter (dense gradients, per bucket)": explain --group takes the first word.
std::string link_user_text(const ScoreState& state, const LinkUser& user);

}  // namespace topoplan

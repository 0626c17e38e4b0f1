// Local search over where ranks run, for one order string: start from a placement built from the
// fabric tree, then try moves (swap two hosts, two blocks of hosts such as pipeline stages or
// data-parallel replicas, two ranks inside a host) on the incremental score state and keep those
// that lower the objective. Seeded and counted in moves, so the same inputs give the same plan.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "planner/score_state.h"

namespace topoplan {

// Where ranks go: hosts in rank order, each with its GPUs in local rank order. Ranks fill the
// positions in order; the first `regular` positions hold the same number of GPUs each and are
// the ones moves exchange.
struct Placement {
  std::vector<int> hosts;
  std::vector<std::vector<VertexId>> gpus;  // per position
  int regular = 0;
};
Layout placement_layout(const Placement& p, int ranks, const std::string& source);

// Rules a placement should keep, as counts of the groups that break them.
struct KeepRules {
  bool tp_in_domain = false;          // every TP and expert-TP group inside one NVLink domain
  bool dp_only_across_sites = false;  // only data-parallel groups cross sites
};
// The groups the rules look at, listed once (a search checks every move).
class KeepCheck {
 public:
  KeepCheck(const RankGroups& groups, const KeepRules& rules);
  int violations(const Cluster& cluster, const Layout& layout) const;
  // How many more (or fewer) groups break a rule in `after` than before `pairs` of ranks swapped
  // their GPUs, in order, to give it: only the groups of those ranks are looked at.
  int change(const Cluster& cluster, const Layout& after, std::span<const std::pair<int, int>> pairs) const;
  bool active() const { return !in_domain_.empty() || !in_site_.empty(); }

 private:
  struct Rule {
    GroupList groups;
    std::vector<uint32_t> group_of;  // per rank
  };
  std::vector<Rule> in_domain_, in_site_;
};

// What the search minimises, in this order: groups breaking a rule, exposed communication per
// step, then bytes on the highest fabric level (the next one down on a tie, and so on).
struct Objective {
  int violations = 0;
  double exposed_us = 0;
  LevelBytes level_bytes{};
};
bool objective_better(const Objective& a, const Objective& b);
Objective objective_of(const ScoreState& state, int violations);

struct SearchLimits {
  uint64_t seed = 1;
  // Counted in host swaps (a move of b hosts counts b): stop after this much work in a row that
  // did not help, and after this much in all.
  int64_t patience = 0;
  int64_t max_work = 0;
  double deadline_s = 0;  // and at this time (bench::now-style seconds since the epoch), 0 = none
};

struct SearchStats {
  int64_t moves = 0, improved = 0, unroutable = 0;
  double seconds = 0;
  bool hit_deadline = false;
};

// Improves `placement` in place; `state` must hold its layout (under the order `groups` follow)
// and ends holding the result. A move whose groups cannot be routed (a fabric cut by --exclude) is
// refused, and the state built again from the placement before it.
Result<SearchStats> search_placement(const Cluster& cluster, const RankGroups& groups, const KeepRules& rules,
                                     Placement& placement, std::unique_ptr<ScoreState>& state, Objective& objective,
                                     const SearchLimits& limits,
                                     const std::function<void(const SearchStats&, const Objective&)>& progress = {});

double wall_seconds();

}  // namespace topoplan

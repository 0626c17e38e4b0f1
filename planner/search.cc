#include "planner/search.h"

#include <algorithm>
#include <chrono>
#include <random>

#include "base/sort_unique.h"
#include "topology/locality.h"

namespace topoplan {
namespace {

// Whether a group's GPUs are not all in one unit, where `unit` maps a GPU to its domain or site
// and `gpu` a rank to its GPU.
template <typename Unit, typename Gpu>
bool spans(const Cluster& c, const std::vector<int>& group, Unit unit, Gpu gpu) {
  const int first = unit(c.device(gpu(group.front())));
  return std::any_of(group.begin() + 1, group.end(), [&](int rank) { return unit(c.device(gpu(rank))) != first; });
}

// A host is its own domain when it has none (PCIe-only nodes).
int domain_of(const Device& d) { return d.scaleup_domain >= 0 ? d.scaleup_domain : -1 - d.host; }
int site_of(const Device& d) { return d.site; }

bool less_by(double a, double b) { return a < b - 1e-9 * std::max(std::abs(a), std::abs(b)) - 1e-12; }

}  // namespace

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Layout placement_layout(const Placement& p, int ranks, const std::string& source) {
  Layout l;
  l.source = source;
  for (const std::vector<VertexId>& gpus : p.gpus)
    for (VertexId v : gpus)
      if (static_cast<int>(l.gpu_of_rank.size()) < ranks) l.gpu_of_rank.push_back(v);
  return l;
}

KeepCheck::KeepCheck(const RankGroups& groups, const KeepRules& rules) {
  // Each token's groups split the ranks: a rank is in one group of each.
  auto add = [&](std::vector<Rule>& into, std::initializer_list<const char*> tokens) {
    for (const char* t : tokens)
      if (Result<GroupList> l = groups.groups(t); l && !l->empty() && l->front().size() > 1) {
        Rule rule{std::move(*l), std::vector<uint32_t>(static_cast<size_t>(groups.world_size()), UINT32_MAX)};
        for (size_t g = 0; g < rule.groups.size(); ++g)
          for (int rank : rule.groups[g]) rule.group_of[static_cast<size_t>(rank)] = static_cast<uint32_t>(g);
        into.push_back(std::move(rule));
      }
  };
  if (rules.tp_in_domain) add(in_domain_, {"tp", "expert.tp"});
  if (rules.dp_only_across_sites) add(in_site_, {"tp", "cp", "pp", "expert.tp", "expert.ep"});
}

int KeepCheck::violations(const Cluster& c, const Layout& layout) const {
  auto gpu = [&](int rank) { return layout.gpu_of_rank[static_cast<size_t>(rank)]; };
  int n = 0;
  for (const Rule& r : in_domain_)
    for (const std::vector<int>& g : r.groups) n += spans(c, g, domain_of, gpu);
  for (const Rule& r : in_site_)
    for (const std::vector<int>& g : r.groups) n += spans(c, g, site_of, gpu);
  return n;
}

int KeepCheck::change(const Cluster& c, const Layout& after, std::span<const std::pair<int, int>> pairs) const {
  // The moved ranks' GPUs before, by rank: the swaps undone, last first.
  std::vector<std::pair<int, VertexId>> before;
  for (const auto& [a, b] : pairs)
    for (int rank : {a, b}) before.emplace_back(rank, after.gpu_of_rank[static_cast<size_t>(rank)]);
  sort_unique(before);
  auto find = [&](int rank) {
    return std::lower_bound(before.begin(), before.end(), rank, [](const auto& x, int r) { return x.first < r; });
  };
  for (auto it = pairs.rbegin(); it != pairs.rend(); ++it) std::swap(find(it->first)->second, find(it->second)->second);
  auto gpu_after = [&](int rank) { return after.gpu_of_rank[static_cast<size_t>(rank)]; };
  auto gpu_before = [&](int rank) {
    auto it = find(rank);
    return it != before.end() && it->first == rank ? it->second : gpu_after(rank);
  };
  int n = 0;
  std::vector<uint32_t> touched;
  auto count = [&](const std::vector<Rule>& rules, auto unit) {
    for (const Rule& r : rules) {
      touched.clear();
      for (const auto& [rank, v] : before)
        if (uint32_t g = r.group_of[static_cast<size_t>(rank)]; g != UINT32_MAX) touched.push_back(g);
      sort_unique(touched);
      for (uint32_t g : touched)
        n += static_cast<int>(spans(c, r.groups[g], unit, gpu_after)) -
             static_cast<int>(spans(c, r.groups[g], unit, gpu_before));
    }
  };
  count(in_domain_, domain_of);
  count(in_site_, site_of);
  return n;
}

bool objective_better(const Objective& a, const Objective& b) {
  if (a.violations != b.violations) return a.violations < b.violations;
  if (less_by(a.exposed_us, b.exposed_us)) return true;
  if (less_by(b.exposed_us, a.exposed_us)) return false;
  for (int l = kFabricLevels - 1; l > 0; --l) {
    const double x = a.level_bytes[static_cast<size_t>(l)], y = b.level_bytes[static_cast<size_t>(l)];
    if (less_by(x, y)) return true;
    if (less_by(y, x)) return false;
  }
  return false;
}

Objective objective_of(const ScoreState& state, int violations) {
  return {violations, state.exposed_us(), state.level_bytes()};
}

Result<SearchStats> search_placement(const Cluster& c, const RankGroups& groups, const KeepRules& rules, Placement& p,
                                     std::unique_ptr<ScoreState>& state, Objective& objective,
                                     const SearchLimits& limits,
                                     const std::function<void(const SearchStats&, const Objective&)>& progress) {
  SearchStats stats;
  const double start = wall_seconds();
  const int regular = p.regular;
  if (regular == 0) return stats;
  const int g = static_cast<int>(p.gpus.front().size());
  const Locality& loc = locality_of(c);
  const KeepCheck keep(groups, rules);

  // Blocks of hosts that move together: every cumulative axis product of the order that covers
  // whole hosts (pipeline stages, data-parallel replicas, expert groups ...).
  std::vector<int> blocks;
  {
    const RankGrid& grid = groups.dense();
    std::vector<Axis> axes;
    Result<std::vector<Axis>> parsed = order_parse(grid.order());
    if (parsed) axes = *parsed;
    int64_t ranks = 1;
    for (Axis a : axes) {
      ranks *= grid.size(a);
      if (ranks % g != 0) continue;
      const int64_t b = ranks / g;
      if (b >= 2 && b < regular && regular % b == 0 &&
          std::find(blocks.begin(), blocks.end(), static_cast<int>(b)) == blocks.end())
        blocks.push_back(static_cast<int>(b));
    }
  }
  // Hosts that are interchangeable for the fabric (one leaf group, single-host domains) are not
  // worth swapping with each other.
  std::vector<int> domain_hosts(static_cast<size_t>(loc.domains), 0);
  for (int d : loc.domain) ++domain_hosts[static_cast<size_t>(d)];
  auto same_place = [&](int i, int j) {
    const size_t a = static_cast<size_t>(p.hosts[static_cast<size_t>(i)]),
                 b = static_cast<size_t>(p.hosts[static_cast<size_t>(j)]);
    if (loc.leaf_group[a] != loc.leaf_group[b]) return false;
    return domain_hosts[static_cast<size_t>(loc.domain[a])] == 1 || loc.domain[a] == loc.domain[b];
  };
  // Leaf groups differ somewhere, or the only moves are inside hosts.
  bool host_moves = false;
  for (int i = 1; i < regular && !host_moves; ++i) host_moves = !same_place(0, i);

  std::mt19937_64 rng(limits.seed);
  std::vector<std::pair<int, int>> pairs;
  std::vector<std::pair<int, int>> positions;  // host position swaps of the move
  // Work is counted in host swaps: a move of b hosts' ranks re-routes about b times as much.
  int64_t since_better = 0, work = 0;
  double last_report = start;
  while (since_better < limits.patience && work < limits.max_work) {
    if (limits.deadline_s > 0 && wall_seconds() > limits.deadline_s) {
      stats.hit_deadline = true;
      break;
    }
    pairs.clear();
    positions.clear();
    const double kind = std::uniform_real_distribution<double>(0, 1)(rng);
    if (host_moves && regular >= 2 && (kind < 0.7 || (blocks.empty() && kind < 0.9))) {
      const int i = std::uniform_int_distribution<int>(0, regular - 1)(rng);
      int j = std::uniform_int_distribution<int>(0, regular - 2)(rng);
      j += j >= i;
      if (same_place(i, j)) {
        ++stats.moves;
        ++since_better;
        ++work;
        continue;
      }
      positions.emplace_back(i, j);
    } else if (host_moves && !blocks.empty() && kind < 0.9) {
      const int b = blocks[std::uniform_int_distribution<size_t>(0, blocks.size() - 1)(rng)];
      const int count = regular / b;
      const int x = std::uniform_int_distribution<int>(0, count - 1)(rng);
      int y = std::uniform_int_distribution<int>(0, count - 2)(rng);
      y += y >= x;
      for (int t = 0; t < b; ++t) positions.emplace_back(x * b + t, y * b + t);
    } else if (g >= 2) {
      // Two ranks of one host trade GPUs (which rail, which PCIe switch each local rank gets).
      const int i = std::uniform_int_distribution<int>(0, regular - 1)(rng);
      const int k = std::uniform_int_distribution<int>(0, g - 1)(rng);
      int l = std::uniform_int_distribution<int>(0, g - 2)(rng);
      l += l >= k;
      pairs.emplace_back(i * g + k, i * g + l);
    } else {
      break;
    }
    for (const auto& [i, j] : positions)
      for (int k = 0; k < g; ++k) pairs.emplace_back(i * g + k, j * g + k);
    ++stats.moves;
    if (Result<void> ok = state->exchange(pairs); !ok) {
      ++stats.unroutable;
      Result<std::unique_ptr<ScoreState>> again =
          state->remake(placement_layout(p, state->layout().world_size(), state->layout().source));
      RETURN_IF_ERROR(again);
      state = std::move(*again);
      since_better += 1;
      work += 1;
      continue;
    }
    const int64_t cost = std::max<int64_t>(1, static_cast<int64_t>(positions.size()));
    work += cost;
    const int violations = keep.active() ? objective.violations + keep.change(c, state->layout(), pairs) : 0;
    const Objective next = objective_of(*state, violations);
    if (objective_better(next, objective)) {
      objective = next;
      ++stats.improved;
      since_better = 0;
      for (const auto& [i, j] : positions) {
        std::swap(p.hosts[static_cast<size_t>(i)], p.hosts[static_cast<size_t>(j)]);
        std::swap(p.gpus[static_cast<size_t>(i)], p.gpus[static_cast<size_t>(j)]);
      }
      if (positions.empty())
        for (const auto& [a, b] : pairs)
          std::swap(p.gpus[static_cast<size_t>(a / g)][static_cast<size_t>(a % g)],
                    p.gpus[static_cast<size_t>(b / g)][static_cast<size_t>(b % g)]);
    } else {
      RETURN_IF_ERROR(state->undo());
      since_better += cost;
    }
    if (progress && wall_seconds() - last_report >= 1) {
      last_report = wall_seconds();
      stats.seconds = last_report - start;
      progress(stats, objective);
    }
  }
  stats.seconds = wall_seconds() - start;
  return stats;
}

}  // namespace topoplan

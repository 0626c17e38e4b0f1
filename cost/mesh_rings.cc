#include "cost/mesh_rings.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace topoplan {
namespace {

// Bounds on the searches' work, far above an 8-GPU mesh's (DGX-1: a few hundred steps): a larger
// mesh gets what is found within them rather than a search without end.
constexpr size_t kMaxCycles = 4096;
constexpr long kMaxSteps = 1'000'000;

// Each GPU's peers, most NVLinks first, then by index: the order NCCL tries next GPUs in (the
// fastest path first), which makes the double-bonded cycle the first ring on DGX-1.
std::vector<std::vector<size_t>> peers_of(const Bonds& bonds) {
  std::vector<std::vector<size_t>> peers(bonds.size());
  for (size_t a = 0; a < bonds.size(); ++a) {
    for (size_t b = 0; b < bonds.size(); ++b)
      if (bonds[a][b] > 0) peers[a].push_back(b);
    std::stable_sort(peers[a].begin(), peers[a].end(), [&](size_t x, size_t y) { return bonds[a][x] > bonds[a][y]; });
  }
  return peers;
}

// Paths from `path.back()` over unvisited GPUs to `length` GPUs, until `steps` reaches `limit`;
// `done` sees each complete one and says whether to stop.
template <typename Done>
bool extend(const std::vector<std::vector<size_t>>& peers, std::vector<size_t>& path, std::vector<bool>& seen,
            size_t length, long& steps, long limit, const Done& done) {
  if (path.size() == length) return done(path);
  for (size_t next : peers[path.back()]) {
    if (seen[next]) continue;
    if (++steps > limit) return true;
    seen[next] = true;
    path.push_back(next);
    const bool stop = extend(peers, path, seen, length, steps, limit, done);
    path.pop_back();
    seen[next] = false;
    if (stop) return true;
  }
  return false;
}

// The most rings from `cycles` (repeats allowed, in list order) that `left` links can carry.
struct Packing {
  const std::vector<std::vector<size_t>>& cycles;
  size_t bound;
  long steps = 0;
  std::vector<size_t> chosen, best;

  bool fits(const std::vector<size_t>& c, const Bonds& left) const {
    for (size_t i = 0; i < c.size(); ++i)
      if (left[c[i]][c[(i + 1) % c.size()]] <= 0) return false;
    return true;
  }
  void take(const std::vector<size_t>& c, Bonds& left, int sign) const {
    for (size_t i = 0; i < c.size(); ++i) left[c[i]][c[(i + 1) % c.size()]] -= sign;
  }
  void run(size_t from, Bonds& left) {
    if (chosen.size() > best.size()) best = chosen;
    if (best.size() >= bound) return;
    for (size_t k = from;
         k < cycles.size() && best.size() < bound && (steps += static_cast<long>(cycles[k].size())) <= kMaxSteps; ++k) {
      if (!fits(cycles[k], left)) continue;
      take(cycles[k], left, 1);
      chosen.push_back(k);
      run(k, left);
      chosen.pop_back();
      take(cycles[k], left, -1);
    }
  }
};

}  // namespace

std::vector<std::vector<size_t>> mesh_rings(const Bonds& bonds) {
  const size_t p = bonds.size();
  if (p < 2) return {};
  const std::vector<std::vector<size_t>> peers = peers_of(bonds);
  std::vector<std::vector<size_t>> cycles;
  std::vector<size_t> path{0};
  std::vector<bool> seen(p);
  seen[0] = true;
  long steps = 0;
  extend(peers, path, seen, p, steps, kMaxSteps, [&](const std::vector<size_t>& full) {
    if (bonds[full.back()][0] > 0) cycles.push_back(full);
    return cycles.size() >= kMaxCycles;
  });
  // No GPU sends on more rings than it has links.
  size_t bound = SIZE_MAX;
  for (const std::vector<int>& row : bonds)
    bound = std::min(bound, static_cast<size_t>(std::accumulate(row.begin(), row.end(), 0)));
  Packing pack{cycles, bound};
  Bonds left = bonds;
  pack.run(0, left);
  std::vector<std::vector<size_t>> rings;
  for (size_t k : pack.best) rings.push_back(cycles[k]);
  return rings;
}

std::vector<std::vector<size_t>> mesh_chains(const Bonds& bonds, const std::vector<std::pair<size_t, size_t>>& ends) {
  const size_t p = bonds.size();
  const std::vector<std::vector<size_t>> peers = peers_of(bonds);
  std::vector<std::vector<size_t>> chains;
  // Links in use so far, per direction; a chain is worth its most used link's load per bond.
  std::vector<std::vector<int>> used(p, std::vector<int>(p));
  auto load = [&](const std::vector<size_t>& c) {
    double worst = 0;
    for (size_t i = 0; i + 1 < c.size(); ++i)
      worst = std::max(worst, (used[c[i]][c[i + 1]] + 1.0) / bonds[c[i]][c[i + 1]]);
    return worst;
  };
  long steps = 0;
  for (size_t k = 0; k < ends.size(); ++k) {
    const size_t from = ends[k].first, to = ends[k].second;
    if (from == to) return {};
    std::vector<size_t> path{from}, best;
    std::vector<bool> seen(p);
    seen[from] = seen[to] = true;  // the exit comes last, after every other GPU
    double best_load = 0;
    // Each chain its share of what is left of the budget; one on links nobody uses yet is final.
    const long limit = steps + (kMaxSteps - steps) / static_cast<long>(ends.size() - k);
    extend(peers, path, seen, p - 1, steps, limit, [&](const std::vector<size_t>& most) {
      if (bonds[most.back()][to] == 0) return false;
      std::vector<size_t> full = most;
      full.push_back(to);
      if (const double l = load(full); best.empty() || l < best_load) best = std::move(full), best_load = l;
      for (size_t i = 0; i + 1 < best.size(); ++i)
        if (used[best[i]][best[i + 1]] > 0) return false;
      return true;
    });
    if (best.empty()) return {};
    for (size_t i = 0; i + 1 < best.size(); ++i) ++used[best[i]][best[i + 1]];
    chains.push_back(std::move(best));
  }
  return chains;
}

}  // namespace topoplan

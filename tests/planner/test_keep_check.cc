#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "planner/search.h"
#include "tests/support.h"

using namespace topoplan;

TEST_CASE("keep check: a move's change in broken rules is what counting them all again gives") {
  // Two sites, one NVLink domain per host, ranks in order: moves of one to eight swaps (some ranks
  // in several) take TP groups out of domains and TP, CP, PP and EP groups across sites, and back.
  const Cluster c = test::load_cluster((test::data_dir() / "clusters" / "two-site-h100.json").string());
  Result<RankGroups> groups = RankGroups::make({4, 2, 2, 4, 2}, "tp-cp-ep-dp-pp");
  REQUIRE(groups.ok());
  const int world = groups->world_size();
  Layout layout;
  for (int r = 0; r < world; ++r) layout.gpu_of_rank.push_back(c.gpus()[static_cast<size_t>(r)]);
  std::mt19937 rng(3);
  const KeepCheck keep(*groups, {true, true});
  REQUIRE(keep.active());
  std::uniform_int_distribution<int> rank(0, world - 1);
  const int tidy = keep.violations(c, layout);
  int changed = 0;
  auto swap_all = [&](const std::vector<std::pair<int, int>>& pairs) {
    for (const auto& [a, b] : pairs)
      std::swap(layout.gpu_of_rank[static_cast<size_t>(a)], layout.gpu_of_rank[static_cast<size_t>(b)]);
  };
  for (int step = 0; step < 200; ++step) {
    std::vector<std::pair<int, int>> pairs;
    const int n = step % 4 == 0 ? 8 : 1 + step % 3;
    for (int k = 0; k < n; ++k) pairs.emplace_back(rank(rng), rank(rng));
    swap_all(pairs);
    const int delta = keep.change(c, layout, pairs);
    CHECK(tidy + delta == keep.violations(c, layout));
    changed += delta != 0;
    // And back, the swaps undone last first.
    std::reverse(pairs.begin(), pairs.end());
    swap_all(pairs);
    CHECK(keep.change(c, layout, pairs) == -delta);
  }
  CHECK(changed > 100);  // the moves do change what breaks
}

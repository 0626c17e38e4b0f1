#include "planner/rank_groups.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tests/support.h"

namespace topoplan {
namespace {

ParallelSizes sizes_of(const nlohmann::json& c) {
  ParallelSizes s;
  s.tp = c.at("tp"), s.cp = c.at("cp"), s.pp = c.at("pp"), s.dp = c.at("dp"), s.ep = c.at("ep");
  s.expert_tp = c.value("expert_tp", 0);
  return s;
}

GroupList groups_of(const RankGroups& g, std::string_view token) {
  Result<GroupList> r = g.groups(token);
  REQUIRE_MESSAGE(r.ok(), r.error());
  return *r;
}

std::string error_of(const ParallelSizes& s, std::string_view order = kDefaultOrder) {
  Result<RankGroups> r = RankGroups::make(s, order);
  REQUIRE_FALSE(r.ok());
  return r.error();
}

// Every rank in exactly one group, and a group's ranks agree on every axis the token leaves out.
void check_partition(const RankGrid& grid, const GroupList& groups, const std::vector<Axis>& kept) {
  std::vector<int> seen(grid.world_size(), 0);
  for (const auto& group : groups) {
    PerAxis first = grid.coordinates(group[0]);
    for (int r : group) {
      ++seen[r];
      PerAxis c = grid.coordinates(r);
      for (Axis a : kept) REQUIRE(at(c, a) == at(first, a));
    }
  }
  CHECK(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
}

}  // namespace

TEST_CASE("rank groups match Megatron-LM's parallel_state.py for every reference case" *
          doctest::skip(test::reference_absent())) {
  auto dir = test::reference_dir();
  if (!dir) return;
  auto doc = nlohmann::json::parse(test::read_file(*dir / "megatron-groups.json"));
  MESSAGE("reference: " << doc.at("note").get<std::string>());
  size_t cases = 0, lists = 0, groups = 0;
  for (const auto& c : doc.at("cases")) {
    ParallelSizes s = sizes_of(c);
    std::string order = c.at("order");
    std::string label = "tp" + std::to_string(s.tp) + " cp" + std::to_string(s.cp) + " pp" + std::to_string(s.pp) +
                        " dp" + std::to_string(s.dp) + " ep" + std::to_string(s.ep) + " etp" +
                        std::to_string(s.expert_tp) + " " + order;
    CAPTURE(label);
    Result<RankGroups> made = RankGroups::make(s, order);
    size_t checked = 0;
    if (c.contains("error")) {
      CHECK_FALSE(made.ok());
      if (c.contains("dense_groups_ignoring_expert_check")) {
        Result<RankGrid> dense = RankGrid::make(order, {s.tp, s.cp, 1, s.dp, s.pp});
        REQUIRE_MESSAGE(dense.ok(), dense.error());
        for (const auto& item : c["dense_groups_ignoring_expert_check"].items()) {
          const std::string token = item.key();  // not a binding: clang 14 cannot capture those
          const auto& want = item.value();
          CAPTURE(token);
          CHECK(dense->groups(token).value() == want.get<GroupList>());
          ++checked, groups += want.size();
        }
      }
      MESSAGE(label << ": rejected (" << (made.ok() ? std::string("accepted!") : made.error()) << "), " << checked
                    << " dense group lists matched; Megatron: " << c["error"].dump());
    } else {
      REQUIRE_MESSAGE(made.ok(), made.error());
      CHECK(made->world_size() == c.at("world").get<int>());
      CHECK(made->expert().size(Axis::dp) == c.at("expert_dp").get<int>());
      for (const auto& item : c.at("groups").items()) {
        const std::string token = item.key();
        const auto& want = item.value();
        CAPTURE(token);
        CHECK(groups_of(*made, token) == want.get<GroupList>());
        ++checked, groups += want.size();
      }
      MESSAGE(label << ": " << checked << " group lists matched");
    }
    ++cases, lists += checked;
  }
  MESSAGE(cases << " cases, " << lists << " group lists, " << groups << " groups compared");
  CHECK(cases == doc.at("cases").size());
}

TEST_CASE("rank groups: the examples in parallel_state.py's docstrings") {
  // initialize_model_parallel: 16 GPUs, tp 2, pp 4.
  Result<RankGroups> g = RankGroups::make({.tp = 2, .pp = 4, .dp = 2});
  REQUIRE(g.ok());
  CHECK(groups_of(*g, "dp") == GroupList{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}});
  CHECK(groups_of(*g, "tp") == GroupList{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}});
  CHECK(groups_of(*g, "pp") == GroupList{{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}});
  // Context parallelism: 8 GPUs, tp 4, cp 2.
  Result<RankGroups> cp = RankGroups::make({.tp = 4, .cp = 2});
  REQUIRE(cp.ok());
  CHECK(groups_of(*cp, "cp") == GroupList{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  // generate_masked_orthogonal_rank_groups: sizes [tp 2, dp 3, pp 4], mask dp.
  Result<RankGrid> grid = RankGrid::make("tp-dp-pp", {2, 1, 1, 3, 4});
  REQUIRE(grid.ok());
  GroupList dp = grid->groups("dp").value();
  REQUIRE(dp.size() == 8);
  CHECK(dp[0] == std::vector<int>{0, 2, 4});
  CHECK(dp[1] == std::vector<int>{1, 3, 5});
  CHECK(dp[7] == std::vector<int>{19, 21, 23});
  // Same docstring: order tp-pp-dp, sizes 2-2-2.
  Result<RankGrid> tpd = RankGrid::make("tp-pp-dp", {2, 1, 1, 2, 2});
  REQUIRE(tpd.ok());
  CHECK(tpd->groups("dp").value() == GroupList{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
}

TEST_CASE("rank groups: combined tokens, coordinates and completed orders") {
  Result<RankGroups> g = RankGroups::make({.tp = 2, .cp = 2, .pp = 2, .dp = 2, .ep = 2, .expert_tp = 1});
  REQUIRE(g.ok());
  // The mask is a set: "pp-tp" is "tp-pp", ranks still listed fastest axis first.
  CHECK(groups_of(*g, "pp-tp") == groups_of(*g, "tp-pp"));
  CHECK(groups_of(*g, "dp-cp")[0] == std::vector<int>{0, 2, 4, 6});
  CHECK(groups_of(*g, "expert.tp-ep")[0] == std::vector<int>{0, 1});
  CHECK(groups_of(*g, "expert.dp")[0] == std::vector<int>{0, 2, 4, 6});
  // 13 = tp 1 + 2*cp 0 + 4*dp 1 + 8*pp 1.
  PerAxis c = g->dense().coordinates(13);
  CHECK(at(c, Axis::tp) == 1);
  CHECK(at(c, Axis::cp) == 0);
  CHECK(at(c, Axis::ep) == 0);
  CHECK(at(c, Axis::dp) == 1);
  CHECK(at(c, Axis::pp) == 1);
  // Expert grid tp 1, ep 2, dp 4: 13 = ep 1 + 2*dp 2 + 8*pp 1.
  PerAxis e = g->expert().coordinates(13);
  CHECK(at(e, Axis::ep) == 1);
  CHECK(at(e, Axis::dp) == 2);
  CHECK(at(e, Axis::pp) == 1);
  // Axes of size 1 may be left out (appended as RankGenerator does); case is ignored.
  Result<RankGrid> short_order = RankGrid::make("TP-DP-PP", {2, 1, 1, 2, 2});
  REQUIRE(short_order.ok());
  CHECK(short_order->order() == "tp-dp-pp-cp-ep");
}

TEST_CASE("rank groups partition the ranks for every order") {
  std::vector<Axis> axes = {Axis::tp, Axis::cp, Axis::ep, Axis::dp, Axis::pp};
  int orders = 0;
  do {
    std::string order;
    for (Axis a : axes) order += (order.empty() ? "" : "-") + std::string(axis_name(a));
    CAPTURE(order);
    Result<RankGrid> grid = RankGrid::make(order, {2, 3, 1, 2, 2});
    REQUIRE(grid.ok());
    for (const char* token : {"tp", "cp", "dp", "pp", "tp-pp", "dp-cp", "tp-cp-dp"}) {
      CAPTURE(token);
      Result<std::vector<Axis>> masked = order_parse(token);
      std::vector<Axis> kept;
      for (Axis a : axes)
        if (std::find(masked->begin(), masked->end(), a) == masked->end()) kept.push_back(a);
      check_partition(*grid, grid->groups(token).value(), kept);
    }
    ++orders;
  } while (std::next_permutation(axes.begin(), axes.end()));
  CHECK(orders == 120);
}

TEST_CASE("rank groups stay linear at 100,000 ranks") {
  // 100000 = tp 8 * pp 5 * dp 2500; expert grid tp 8, ep 4, dp 625.
  Result<RankGroups> g = RankGroups::make({.tp = 8, .pp = 5, .dp = 2500, .ep = 4});
  REQUIRE_MESSAGE(g.ok(), g.error());
  CHECK(g->world_size() == 100000);
  GroupList dp = groups_of(*g, "dp");
  CHECK(dp.size() == 40);
  CHECK(dp[39].back() == 99999);
  GroupList ep = groups_of(*g, "expert.ep");
  CHECK(ep.size() == 25000);
  CHECK(ep[1] == std::vector<int>{1, 9, 17, 25});
  check_partition(g->expert(), ep, {Axis::tp, Axis::dp, Axis::pp});
}

TEST_CASE("rank groups reject what initialize_model_parallel rejects") {
  CHECK(error_of({.tp = 0}) == "tp size must be positive, got 0");
  CHECK(error_of({.dp = -2}) == "dp size must be positive, got -2");
  CHECK(error_of({.expert_tp = -1}) == "expert_tp size must be positive (or 0 for the tp size), got -1");
  CHECK(error_of({.tp = 2, .pp = 2, .dp = 3, .ep = 2}) ==
        "world size 12 (tp*cp*pp*dp) is not divisible by expert_tp*ep*pp = 2*2*2 = 8");
  CHECK(error_of({.tp = 65536, .dp = 65536}) ==
        "world size tp*cp*pp*dp = 65536*1*1*65536 is more than the limit of 1,048,576 ranks (one per GPU of the "
        "largest cluster accepted)");
  CHECK(error_of({}, "tp-cp-ep-dq-pp") ==
        "order 'tp-cp-ep-dq-pp': unknown axis 'dq', did you mean 'dp'? (axes: tp, cp, ep, dp, pp)");
  CHECK(error_of({}, "tp-dp-tp-pp") == "order 'tp-dp-tp-pp': axis 'tp' appears twice");
  CHECK(error_of({}, "tp--dp") == "order 'tp--dp': empty axis name (axes: tp, cp, ep, dp, pp)");
  CHECK(error_of({.cp = 2}, "tp-dp-pp") == "order 'tp-dp-pp' lacks 'cp', but the cp size is 2");
  // The dense grid has ep 1, so only the expert grid needs 'ep' in the order.
  CHECK(error_of({.dp = 4, .ep = 4}, "tp-cp-dp-pp") ==
        "expert grid: order 'tp-cp-dp-pp' lacks 'ep', but the ep size is 4");
  CHECK(error_of({.pp = 2, .dp = 4, .ep = 2}, "tp-cp-ep-pp-dp") ==
        "order 'tp-cp-ep-pp-dp' does not end with pp, so with pp 2 the expert dp size (2) must equal the dp "
        "size (4)");
  CHECK(error_of({.tp = 2, .cp = 2, .pp = 2, .dp = 2, .ep = 4, .expert_tp = 1}, "tp-cp-pp-ep-dp") ==
        "order 'tp-cp-pp-ep-dp' gives different pipeline groups for the dense grid (tp-cp-pp-ep-dp) and the "
        "expert grid (tp-cp-pp-ep-dp); Megatron requires them equal");
}

TEST_CASE("rank groups reject unknown group tokens") {
  Result<RankGroups> g = RankGroups::make({.tp = 2, .dp = 2});
  REQUIRE(g.ok());
  CHECK(g->groups("tq").error() == "group 'tq': unknown axis 'tq', did you mean 'tp'? (axes: tp, cp, ep, dp, pp)");
  CHECK(g->groups("expret.tp").error() ==
        "group 'expret.tp': unknown grid 'expret', did you mean 'expert'? (groups are 'tp', 'dp-cp', … or "
        "'expert.tp', …)");
  CHECK(g->groups("d").error() == "group 'd': unknown axis 'd', did you mean 'dp'? (axes: tp, cp, ep, dp, pp)");
  // One letter off every axis: no single guess.
  CHECK(g->groups("xp").error() == "group 'xp': unknown axis 'xp' (axes: tp, cp, ep, dp, pp)");
  CHECK(g->groups("expert.tp-dq").error().find("unknown axis 'dq', did you mean 'dp'?") != std::string::npos);
}

}  // namespace topoplan

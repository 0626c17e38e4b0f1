#include "planner/rank_groups_text.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

namespace topoplan {
namespace {

TEST_CASE("rank_groups_text and rank_groups_json: the head of each list, and every group") {
  Result<RankGroups> g = RankGroups::make({.tp = 2, .pp = 4, .dp = 2});
  REQUIRE(g.ok());
  const std::string text = rank_groups_text(*g);
  CHECK(text.rfind("# world 16, order tp-cp-ep-dp-pp; dense grid tp 2, cp 1, dp 2, pp 4; expert grid", 0) == 0);
  CHECK(text.find("\ntp                 8 x 2      [0 1] [2 3] [4 5] [6 7] ... 4 more\n") != std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(rank_groups_json(*g));
  CHECK(j["pp"] == nlohmann::json::parse("[[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]]"));
  CHECK(j.size() == 10);
}

}  // namespace
}  // namespace topoplan

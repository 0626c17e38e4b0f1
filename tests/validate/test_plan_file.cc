#include "validate/plan_file.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "tests/support.h"

namespace topoplan {
namespace {

// A plan file as topoplan plan writes it, cut down to what validate reads: 4 ranks on 2 hosts,
// TP 2 and DP 2.
nlohmann::json plan4() {
  nlohmann::json ranks = nlohmann::json::array();
  for (int r = 0; r < 4; ++r) ranks.push_back({{"rank", r}, {"host", r < 2 ? "h001" : "h002"}, {"gpu", r % 2}});
  return {{"format", "topoplan-plan"},
          {"job", {{"name", "t"}}},
          {"ranks", ranks},
          {"groups", {{"tp", {{0, 1}, {2, 3}}}, {"dp-cp", {{0, 2}, {1, 3}}}, {"cp", {{0}, {1}, {2}, {3}}}}},
          {"score",
           {{"items",
             {{{"group", "tp"}, {"op", "all_gather"}, {"bytes", 4096}},
              {{"group", "tp"}, {"op", "reduce_scatter"}, {"bytes", 4096}},
              {{"group", "tp"}, {"op", "all_gather"}, {"bytes", 4096}},
              {{"group", "dp-cp"}, {"op", "all_reduce"}, {"bytes", 1e6}}}}}}};
}

std::string error_of(const nlohmann::json& j) {
  Result<ValidatePlan> p = validate_plan_parse(j.dump(), "plan.json");
  return p ? "" : p.error();
}

}  // namespace

TEST_CASE("validate plan: ranks, groups with two or more ranks, distinct collectives per kind") {
  Result<ValidatePlan> p = validate_plan_parse(plan4().dump(), "plan.json");
  REQUIRE_MESSAGE(p.ok(), (p ? "" : p.error()));
  CHECK(p->world == 4);
  CHECK(p->job == "t");
  CHECK(p->host_of_rank == std::vector<std::string>{"h001", "h001", "h002", "h002"});
  REQUIRE(p->kinds.size() == 2);  // cp has one rank per group: nothing to run
  CHECK(p->kinds[0].kind == "tp");
  CHECK(p->kinds[0].collectives.size() == 2);  // the repeated all-gather once
  CHECK(p->kinds[1].kind == "dp");
  CHECK(p->kinds[1].token == "dp-cp");
  CHECK(p->kinds[1].groups == std::vector<std::vector<int>>{{0, 2}, {1, 3}});
  CHECK(validate_kinds_select(*p, "dp")->front().kind == "dp");
  CHECK(validate_kinds_select(*p, "").value().size() == 2);
}

TEST_CASE("validate plan: malformed input names the file and the field") {
  CHECK(error_of({{"format", "topoplan-job"}}).starts_with("plan.json: expected a plan file"));
  CHECK(validate_plan_parse("{\"format\": ", "plan.json").error().starts_with("plan.json:1:"));
  nlohmann::json j = plan4();
  j["ranks"][2]["rank"] = 5;
  CHECK(error_of(j) == "plan.json: ranks[2]: expected {\"rank\": 2, \"host\", \"gpu\"}, got an object");
  j = plan4();
  j["ranks"][1]["gpu"] = -1;
  CHECK(error_of(j) == "plan.json: ranks[1].gpu: expected the GPU's local index, a whole number from 0");
  j = plan4();
  j["groups"]["tp"][1] = {2, 9};
  CHECK(error_of(j) == "plan.json: groups.tp[1]: rank 9 is outside the world of 4");
  j = plan4();
  j["groups"]["tp"][1] = {1, 3};
  CHECK(error_of(j) == "plan.json: groups.tp[1]: rank 1 is in two groups");
  j = plan4();
  j["groups"]["tp"] = {{0, 1, 2}, {3}};
  CHECK(error_of(j) == "plan.json: groups.tp[1]: has 1 rank, group 0 has 3");
  j = plan4();
  j["score"]["items"][0]["op"] = "broadcast";
  CHECK(error_of(j).starts_with("plan.json: score.items[0].op: expected all_reduce, all_gather"));
  j = plan4();
  j["score"]["items"][3]["bytes"] = -1;
  CHECK(error_of(j) == "plan.json: score.items[3].bytes: expected a size above 0, got -1");
  j = plan4();
  j.erase("score");
  CHECK(error_of(j) == "plan.json: score.items: expected the job's collectives per step");
  CHECK(validate_plan_read("/nonexistent/plan.json").error().starts_with("/nonexistent/plan.json: cannot read"));
}

TEST_CASE("validate plan: --kinds and --sizes") {
  ValidatePlan p = *validate_plan_parse(plan4().dump(), "plan.json");
  CHECK(validate_kinds_select(p, "tq").error() ==
        "--kinds: unknown kind 'tq', did you mean 'tp'? (the plan has tp, dp)");
  CHECK(validate_kinds_select(p, "pp").error() ==
        "--kinds: the plan has no collectives on pp groups of two or more ranks (it has tp, dp)");
  CHECK(validate_kinds_select(p, "dp,tp,dp")->size() == 2);
  CHECK(*validate_sizes_parse("1KiB,4MB") == std::vector<double>{1024, 4e6});
  CHECK(validate_sizes_parse("3B").error() == "3B is not a whole number of 4-byte elements (float32), at least 4 B");
  CHECK_FALSE(validate_sizes_parse("1KiB,"));
  CHECK_FALSE(validate_sizes_parse("x"));
  // nccl-tests' sizes: K, M, G, T binary, a bare number in bytes.
  CHECK(*validate_sizes_parse("8,64K,1M,8G") == std::vector<double>{8, 65536, 1048576, 8589934592.0});
  CHECK(*validate_size_parse("128m") == 128.0 * 1048576);
  CHECK_FALSE(validate_size_parse("6"));
  CHECK_FALSE(validate_size_parse("K"));
  CHECK_FALSE(validate_size_parse("1.5K"));
}

}  // namespace topoplan

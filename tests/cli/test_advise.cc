#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support.h"

using topoplan::test::run_topoplan;

TEST_CASE("advise --alternatives: the table, its JSON, and plan's short of GPUs") {
  const std::string job = (topoplan::test::data_dir() / "jobs" / "llama3-70b.json").string();
  const std::string base = "--cluster dgx-h100:16 --job " + job;
  auto text = run_topoplan("advise --alternatives --free h[001-015] " + base);
  REQUIRE_MESSAGE(text.exit_code == 0, text.err);
  CHECK(text.out.rfind("llama3-70b as given needs 128 GPUs; the 15 free hosts have 120 up\n", 0) == 0);
  CHECK(text.out.find("  layout ") != std::string::npos);
  auto json = run_topoplan("advise --alternatives --busy h016 --limit 2 --json " + base);
  REQUIRE_MESSAGE(json.exit_code == 0, json.err);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  CHECK(j["gpus_available"] == 120);
  CHECK(j["ranked"].size() == 2);
  // The table's first row is the JSON's first layout.
  const auto& first = j["ranked"][0]["parallel"];
  CHECK(text.out.find("tp " + std::to_string(first["tp"].get<int>()) + " pp " +
                      std::to_string(first["pp"].get<int>())) != std::string::npos);

  // plan on those hosts fails as before, with the layouts that fit.
  auto plan = run_topoplan("plan --nodes h[001-015] " + base);
  CHECK(plan.exit_code == 2);
  CHECK(plan.err.find("the job needs 128 GPUs; the 15 free hosts have 120 up\nlayouts of llama3-70b on at most "
                      "120 GPUs") != std::string::npos);

  // Without --alternatives: what each shape costs, as a table and as JSON.
  auto curve = run_topoplan("advise " + base);
  REQUIRE_MESSAGE(curve.exit_code == 0, curve.err);
  CHECK(curve.out.rfind("llama3-70b needs 16 hosts; its step with the hosts in each shape", 0) == 0);
  auto curve_json = run_topoplan("advise --json " + base);
  REQUIRE(curve_json.exit_code == 0);
  const nlohmann::json shapes = nlohmann::json::parse(curve_json.out)["shapes"];
  REQUIRE(!shapes.empty());
  CHECK(curve.out.find(shapes[0]["shape"].get<std::string>()) != std::string::npos);
  // With the hosts free now: the planner's best on them beside, and what waiting would save. On a
  // one-leaf cluster every shape is the same, so nothing.
  auto now = run_topoplan("advise --free h[001-016] " + base);
  REQUIRE_MESSAGE(now.exit_code == 0, now.err);
  CHECK(now.out.find("\nnow, on the free hosts: step ") != std::string::npos);
  CHECK(now.out.find("as good as the best shape: nothing to wait for") != std::string::npos);
  auto now_json = run_topoplan("advise --busy h[001-004] --json --cluster dgx-h100:20 --job " + job);
  REQUIRE_MESSAGE(now_json.exit_code == 0, now_json.err);
  CHECK(nlohmann::json::parse(now_json.out)["now"]["hosts"][0] == "h005");
  // Bad input.
  auto few = run_topoplan("advise --cluster dgx-h100:4 --job " + job);
  CHECK(few.exit_code == 2);
  CHECK(few.err.find("the job needs 16 hosts of 8 GPUs; 4 whole hosts free") != std::string::npos);
  auto both = run_topoplan("advise --free h001 --busy h002 " + base);
  CHECK(both.exit_code == 2);
  auto all_busy = run_topoplan("advise --busy h[001-016] " + base);
  CHECK(all_busy.exit_code == 2);
  CHECK(all_busy.err.find("--busy: every host is busy") != std::string::npos);
  auto unknown = run_topoplan("advise --alternatives --free h[001-015],h999 " + base);
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("h999") != std::string::npos);
  CHECK(run_topoplan("advise --alternatives --limit 0 " + base).exit_code == 2);
}

TEST_CASE("advise --candidates: ranked, as JSON, exit codes a scheduler gates on") {
  const std::string job = (topoplan::test::data_dir() / "jobs" / "llama3-70b.json").string();
  const std::string base = "--cluster dgx-h100:40 --job " + job;
  const auto dir = topoplan::test::temp_dir("advise-candidates");
  const std::string file = (dir / "candidates.txt").string();
  std::ofstream(file) << "h[001-016]\n{\"id\": \"late\", \"hosts\": \"h[017-031]\"}\nh[005-020]\n";
  auto text = run_topoplan("advise --candidates " + file + " " + base);
  REQUIRE_MESSAGE(text.exit_code == 0, text.err);
  CHECK(text.out.rfind("llama3-70b on 3 candidates, each planned as plan --nodes would", 0) == 0);
  CHECK(text.out.find("do not hold the job:\n  late: the job needs 128 GPUs; the 15 free hosts have 120 up") !=
        std::string::npos);
  auto json = run_topoplan("advise --json --candidates " + file + " " + base);
  REQUIRE_MESSAGE(json.exit_code == 0, json.err);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  REQUIRE(j["candidates"].size() == 3);
  CHECK(j["candidates"][1]["id"] == "late");
  CHECK(j["candidates"][1]["holds"] == false);
  CHECK(j["ranked"].size() == 2);
  // The first ranked candidate's step is plan's on its hosts.
  auto plan = run_topoplan("plan --json --nodes h[001-016] " + base);
  REQUIRE_MESSAGE(plan.exit_code == 0, plan.err);
  CHECK(j["candidates"][0]["step_s"] == nlohmann::json::parse(plan.out)["score"]["step_s"]);

  auto quick = run_topoplan("advise --quick --json --candidates " + file + " " + base);
  REQUIRE_MESSAGE(quick.exit_code == 0, quick.err);
  CHECK(nlohmann::json::parse(quick.out)["search"] == false);
  CHECK(run_topoplan("advise --quick " + base).exit_code == 2);  // --quick needs --candidates

  // None holds the job: exit 1. A host the cluster lacks: exit 2, naming the line.
  std::ofstream(file) << "h[001-015]\n";
  CHECK(run_topoplan("advise --candidates " + file + " " + base).exit_code == 1);
  std::ofstream(file) << "h[001-016]\n\nh[001-015],h099\n";
  auto unknown = run_topoplan("advise --candidates " + file + " " + base);
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find(file + ":3: no host 'h099' in the cluster") != std::string::npos);
  CHECK(run_topoplan("advise --candidates " + file + " --free h001 " + base).exit_code == 2);
  CHECK(run_topoplan("advise --candidates " + (dir / "absent.txt").string() + " " + base).exit_code == 2);
}

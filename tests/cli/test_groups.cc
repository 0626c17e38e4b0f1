#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/tool.h"
#include "tests/support.h"

namespace topoplan::cli {

Tool groups_tool();

namespace {

// The tool alone, parsed and run in this process (no dependency on the tool table).
test::RunResult run_groups(std::vector<std::string> args) {
  CLI::App app;
  Run run = groups_tool().setup(*app.add_subcommand("groups"));
  args.insert(args.begin(), {std::string("topoplan"), std::string("groups")});
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  app.parse(static_cast<int>(argv.size()), argv.data());
  std::ostringstream out, err;
  test::RunResult r;
  r.exit_code = run(out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

std::vector<std::string> size_args(const nlohmann::json& c) {
  std::vector<std::string> args;
  for (const char* k : {"tp", "cp", "pp", "dp", "ep"}) args.insert(args.end(), {std::string("--") + k, c[k].dump()});
  args.insert(args.end(), {"--expert-tp", c["expert_tp"].dump(), "--order", c["order"].get<std::string>()});
  return args;
}

}  // namespace

TEST_CASE("groups --json prints the reference's group lists" * doctest::skip(test::reference_absent())) {
  auto dir = test::reference_dir();
  if (!dir) return;
  auto doc = nlohmann::json::parse(test::read_file(*dir / "megatron-groups.json"));
  int matched = 0;
  for (const auto& c : doc.at("cases")) {
    if (!c.contains("groups")) continue;
    std::vector<std::string> args = size_args(c);
    args.push_back("--json");
    test::RunResult r = run_groups(args);
    CAPTURE(c.dump().substr(0, 120));
    REQUIRE_MESSAGE(r.exit_code == kExitOk, r.err);
    CHECK(nlohmann::json::parse(r.out) == c["groups"]);
    ++matched;
  }
  MESSAGE(matched << " reference cases printed identically by 'groups --json'");
}

TEST_CASE("groups prints a compact table") {
  test::RunResult r = run_groups({"--tp", "2", "--cp", "2", "--pp", "2", "--dp", "4", "--ep", "4", "--expert-tp", "1"});
  REQUIRE(r.exit_code == kExitOk);
  CHECK(r.out ==
        "# world 32, order tp-cp-ep-dp-pp; dense grid tp 2, cp 2, dp 4, pp 2; expert grid tp 1, ep 4, dp 4, pp 2\n"
        "# group         count x size  first groups (--json for all)\n"
        "tp                16 x 2      [0 1] [2 3] [4 5] [6 7] ... 12 more\n"
        "cp                16 x 2      [0 2] [1 3] [4 6] [5 7] ... 12 more\n"
        "dp                 8 x 4      [0 4 8 12] [1 5 9 13] [2 6 10 14] [3 7 11 15] ... 4 more\n"
        "pp                16 x 2      [0 16] [1 17] [2 18] [3 19] ... 12 more\n"
        "tp-pp              8 x 4      [0 1 16 17] [2 3 18 19] [4 5 20 21] [6 7 22 23] ... 4 more\n"
        "dp-cp              4 x 8      [0 2 4 6 8 10 12 14] [1 3 5 7 9 11 13 15] [16 18 20 22 24 26 28 30] "
        "[17 19 21 23 25 27 29 31]\n"
        "expert.ep          8 x 4      [0 1 2 3] [4 5 6 7] [8 9 10 11] [12 13 14 15] ... 4 more\n"
        "expert.dp          8 x 4      [0 4 8 12] [1 5 9 13] [2 6 10 14] [3 7 11 15] ... 4 more\n"
        "expert.tp         32 x 1      [0] [1] [2] [3] ... 28 more\n"
        "expert.tp-ep       8 x 4      [0 1 2 3] [4 5 6 7] [8 9 10 11] [12 13 14 15] ... 4 more\n");
  // Long groups show their head and last rank.
  test::RunResult big = run_groups({"--tp", "8", "--pp", "4", "--dp", "4", "--order", "tp-cp-ep-pp-dp"});
  REQUIRE(big.exit_code == kExitOk);
  CHECK(big.out.find("\ntp-pp              4 x 32     [0 1 2 3 4 5 6 ... 31] [32 33 34 35 36 37 38 ... 63]") !=
        std::string::npos);
}

TEST_CASE("groups rejects bad sizes and orders with exit 2") {
  test::RunResult r = run_groups({"--tp", "2", "--pp", "2", "--dp", "3", "--ep", "2"});
  CHECK(r.exit_code == kExitBadInput);
  CHECK(r.out.empty());
  CHECK(r.err == "topoplan: error: world size 12 (tp*cp*pp*dp) is not divisible by expert_tp*ep*pp = 2*2*2 = 8\n");
  r = run_groups({"--order", "tp-cp-ep-dq-pp"});
  CHECK(r.exit_code == kExitBadInput);
  CHECK(r.err.find("unknown axis 'dq', did you mean 'dp'?") != std::string::npos);
}

// Through the real binary: needs groups_tool() in the table of cli/tools.cc.
TEST_CASE("topoplan groups runs from the command line") {
  test::RunResult r = test::run_topoplan("groups --tp 2 --pp 2 --dp 2 --json");
  REQUIRE_MESSAGE(r.exit_code == kExitOk, r.err);
  auto json = nlohmann::json::parse(r.out);
  CHECK(json["tp-pp"] == nlohmann::json::parse("[[0, 1, 4, 5], [2, 3, 6, 7]]"));
  r = test::run_topoplan("groups --tp 0");
  CHECK(r.exit_code == kExitBadInput);
  CHECK(r.err == "topoplan: error: --tp: expected an integer from 1 to 1048576, got '0' (see 'groups --help')\n");
  r = test::run_topoplan("groups --tp 32768 --dp 32768");
  CHECK(r.exit_code == kExitBadInput);
  CHECK(r.err.find("more than the limit of 1,048,576 ranks") != std::string::npos);
  r = test::run_topoplan("groups --tp 99999999999");
  CHECK(r.exit_code == kExitBadInput);
  CHECK(r.err.find("--tp: expected an integer from 1 to 1048576, got '99999999999'") != std::string::npos);
  r = test::run_topoplan("groups --tp two");
  CHECK(r.exit_code == kExitBadInput);
}

}  // namespace topoplan::cli

TEST_CASE("groups --job takes the sizes and the order from a job file") {
  const std::string job = (topoplan::test::data_dir() / "jobs" / "mixtral-8x7b.json").string();
  auto r = topoplan::test::run_topoplan("groups --job " + job + " --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  auto j = nlohmann::json::parse(r.out);
  // tp 1, pp 4, dp 16, ep 8 on 64 ranks: 16 PP groups of 4, 64 / 8 = 8 expert-EP groups of 8.
  CHECK(j["pp"].size() == 16);
  CHECK(j["pp"][0] == nlohmann::json({0, 16, 32, 48}));
  CHECK(j["expert.ep"].size() == 8);
  CHECK(j["expert.ep"][0].size() == 8);
  auto both = topoplan::test::run_topoplan("groups --job " + job + " --tp 2");
  CHECK(both.exit_code == 2);
  auto missing = topoplan::test::run_topoplan("groups --job /nonexistent/job.json");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("/nonexistent/job.json: cannot read") != std::string::npos);
}

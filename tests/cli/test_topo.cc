#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "tests/support.h"

using topoplan::test::run_topoplan;

TEST_CASE("topo show: counts in JSON") {
  auto r = run_topoplan("topo show dgx-h100:4 --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["gpus"] == 32);
  CHECK(j["hosts"] == 4);
  CHECK(j["nics"] == 32);
  CHECK(j["switches"] == 12);
  CHECK(j["sites"] == 1);
  CHECK(j["scaleup_domains"] == 4);
  CHECK(j["rails"] == 8);
  auto text = run_topoplan("topo show dgx-h100:4");
  CHECK(text.out.find("32 GPUs on 4 hosts") != std::string::npos);
}

TEST_CASE("topo path: class and bottleneck between two GPUs") {
  auto r = run_topoplan("topo path dgx-h100:2 h001/gpu0 h002/gpu0 --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["class"] == "NET");
  CHECK(j["bw_gbps"].get<double>() == doctest::Approx(50));
  CHECK(j["src_nic"] == "h001/nic0");
  r = run_topoplan("topo path dgx-h100:2 0 7");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("h001/gpu0 -> h001/gpu7: NVL") != std::string::npos);
}

TEST_CASE("topo export: json and dot") {
  auto r = run_topoplan("topo export dgx-h100:1 --format json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(nlohmann::json::parse(r.out)["devices"].size() > 20);
  r = run_topoplan("topo export dgx-h100:1 --format dot");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("graph") != std::string::npos);
  r = run_topoplan("topo export dgx-h100:1 --format svg");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("unknown format 'svg'") != std::string::npos);
}

TEST_CASE("cli: typos and bad clusters get one clear error and exit 2") {
  auto r = run_topoplan("tpoo show dgx-h100:1");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("did you mean 'topo'") != std::string::npos);
  r = run_topoplan("topo shw dgx-h100:1");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("did you mean 'show'") != std::string::npos);
  r = run_topoplan("topo show dgx-h10:4");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("unknown preset 'dgx-h10', did you mean 'dgx-h100'?") != std::string::npos);
  r = run_topoplan("topo show /nonexistent/cluster.json");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("/nonexistent/cluster.json") != std::string::npos);
  r = run_topoplan("topo path dgx-h100:1 h001/gpu0 h001/gpu9");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("did you mean") != std::string::npos);
  r = run_topoplan("topo path dgx-h100:1 0 99");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("out of range") != std::string::npos);
  r = run_topoplan("--help");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("transfer") != std::string::npos);
}

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "tests/support.h"

using topoplan::test::run_topoplan;

namespace {

double seconds(const std::string& args) {
  auto r = run_topoplan("transfer " + args + " --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return nlohmann::json::parse(r.out)["seconds"].get<double>();
}

}  // namespace

TEST_CASE("transfer: the facility-transfer table (100 TB)") {
  CHECK(seconds("--size 100TB --rate 100Gbps") == doctest::Approx(8000));   // 2 h 13 min 20 s
  CHECK(seconds("--size 100TB --rate 400Gbps") == doctest::Approx(2000));   // 33 min 20 s
  CHECK(seconds("--size 100TB --rate 800Gbps") == doctest::Approx(1000));   // 16 min 40 s
  CHECK(seconds("--size 100TB --rate 1.6Tbps") == doctest::Approx(500));    // 8 min 20 s
  CHECK(seconds("--size 100TB --rate 100Gbps --efficiency 0.8") == doctest::Approx(10000));  // ~2 h 47 min
  auto text = run_topoplan("transfer --size 100TB --rate 100Gbps");
  CHECK(text.out.find("2 h 13 min 20 s") != std::string::npos);
  auto r = run_topoplan("transfer --size 100TB --rate 100Gbps --deadline 1h --json");
  REQUIRE(r.exit_code == 0);
  CHECK(nlohmann::json::parse(r.out)["required_gbps"].get<double>() == doctest::Approx(222.22).epsilon(1e-3));
}

TEST_CASE("transfer: between two sites of a cluster, with propagation") {
  auto r = run_topoplan("transfer --size 100TB --cluster " +
                        (topoplan::test::data_dir() / "clusters/two-site-h100.json").string() +
                        " --from siteA --to siteB --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["rate_gbps"].get<double>() == doctest::Approx(3200));
  CHECK(j["propagation_s"].get<double>() == doctest::Approx(100 * 4.9e-6));
  CHECK(j["seconds"].get<double>() == doctest::Approx(250 + 100 * 4.9e-6));
}

TEST_CASE("transfer: bad input exits 2 with the field named") {
  auto r = run_topoplan("transfer --size 12XB --rate 100Gbps");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--size: invalid size '12XB'") != std::string::npos);
  r = run_topoplan("transfer --size 1TB --rate 100");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--rate") != std::string::npos);
  r = run_topoplan("transfer --size 1TB");
  CHECK(r.exit_code == 2);
  r = run_topoplan("transfer --size 1TB --rate 1Gbps --efficiency 1.5");
  CHECK(r.exit_code == 2);
  r = run_topoplan("transfer --size 1TB --rate 1Gbps --deadline soon");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--deadline") != std::string::npos);
  r = run_topoplan("transfer --size 1TB --cluster dgx-h100:2 --from site0 --to siteX");
  CHECK(r.exit_code == 2);
}

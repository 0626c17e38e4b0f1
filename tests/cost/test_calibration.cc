#include "cost/calibration.h"

#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support.h"

namespace topoplan {

TEST_CASE("calibration: an overlay replaces only what it names, and round-trips") {
  nlohmann::json doc = {{"efficiency", {{"NET", 0.9}}}, {"launch_us", 10}};
  Result<Calibration> c = calibration_from_json(doc, "cal.json");
  REQUIRE_MESSAGE(c.ok(), c.error());
  CHECK(c->efficiency[static_cast<size_t>(LinkKind::NET)] == 0.9);
  CHECK(c->efficiency[static_cast<size_t>(LinkKind::NVL)] == calibration_default().efficiency[0]);
  CHECK(c->launch_us == 10);
  CHECK(c->latency_us[static_cast<size_t>(LinkKind::NET)] == 0);
  Result<Calibration> back = calibration_from_json(calibration_to_json(*c), "again");
  REQUIRE(back.ok());
  CHECK(calibration_to_json(*back) == calibration_to_json(*c));
  Link nic{0, LinkKind::NET, 50, 0, 0};
  CHECK(c->effective_gbps(nic) == doctest::Approx(45));
}

TEST_CASE("calibration: malformed overlays name the field") {
  auto err = [](const nlohmann::json& doc) {
    Result<Calibration> c = calibration_from_json(doc, "cal.json");
    REQUIRE_FALSE(c.ok());
    return c.error();
  };
  CHECK(err({{"efficency", {}}}) == "cal.json: unknown key 'efficency', did you mean 'efficiency'?");
  CHECK(err({{"efficiency", {{"NVL", 1.5}}}}) == "cal.json: efficiency.NVL: expected a number from 0.00001 to 1, got 1.5");
  CHECK(err({{"efficiency", {{"NVL", "fast"}}}}) == "cal.json: efficiency.NVL: expected a number from 0.00001 to 1, got \"fast\"");
  CHECK(err({{"efficiency", {{"NVLINK", 0.8}}}}).starts_with("cal.json: efficiency: unknown key 'NVLINK'"));
  CHECK(err({{"launch_us", -1}}) == "cal.json: launch_us: expected a number from 0 to 1000000, got -1");
  // Values that would overflow a duration or divide it by almost nothing are refused by name.
  CHECK(err({{"launch_us", 1e308}}) == "cal.json: launch_us: expected a number from 0 to 1000000, got 1e+308");
  CHECK(err({{"efficiency", {{"NET", 1e-300}}}}) == "cal.json: efficiency.NET: expected a number from 0.00001 to 1, got 1e-300");
  CHECK(err({{"latency_us", {{"NET", -2}}}}) == "cal.json: latency_us.NET: expected a number from 0 to 1000000, got -2");
  CHECK(err({{"latency_us", {{"IB", 2}}}}).starts_with("cal.json: latency_us: unknown key 'IB'"));
  CHECK(err({{"nvls_efficiency", 0}}) == "cal.json: nvls_efficiency: expected a number from 0.00001 to 1, got 0");
  CHECK(err(nlohmann::json::array()) == "cal.json: expected an object, got an array");
  auto dir = test::temp_dir("calibration");
  std::ofstream(dir / "broken.json") << "{\"launch_us\": 3,,}";
  Result<Calibration> broken = calibration_load((dir / "broken.json").string());
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().starts_with((dir / "broken.json").string() + ":1:"));
  CHECK(calibration_load((dir / "missing.json").string()).error().find("cannot read") != std::string::npos);
}

}  // namespace topoplan

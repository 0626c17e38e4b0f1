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
  CHECK(err({{"efficiency", {{"NVL", 1.5}}}}) == "cal.json: efficiency.NVL: expected a fraction of the line rate in (0, 1]");
  CHECK(err({{"efficiency", {{"NVL", "fast"}}}}) == "cal.json: efficiency.NVL: expected a positive number, got \"fast\"");
  CHECK(err({{"efficiency", {{"NVLINK", 0.8}}}}).starts_with("cal.json: efficiency: unknown key 'NVLINK'"));
  CHECK(err({{"launch_us", -1}}) == "cal.json: launch_us: expected a number >= 0, got -1");
  CHECK(err(nlohmann::json::array()) == "cal.json: expected an object, got an array");
  auto dir = test::temp_dir("calibration");
  std::ofstream(dir / "broken.json") << "{\"launch_us\": 3,,}";
  Result<Calibration> broken = calibration_load((dir / "broken.json").string());
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().starts_with((dir / "broken.json").string() + ":1:"));
  CHECK(calibration_load((dir / "missing.json").string()).error().find("cannot read") != std::string::npos);
}

}  // namespace topoplan

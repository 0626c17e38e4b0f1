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
  // Per edge: NET by its kind, a GPU's NVLink by the GPU's generation, NVLS on top of that.
  Cluster two = test::load_cluster("dgx-h100:2");
  const VertexId gpu = two.hosts()[0].gpus[0], nic = two.hosts()[0].nics[0];
  auto edge_to = [&](VertexId from, DeviceKind kind) {
    for (EdgeId e : two.out_edges(from))
      if (two.device(two.target(e)).kind == kind) return e;
    FAIL("no edge");
    return EdgeId{0};
  };
  CHECK(c->copy_efficiency(two, edge_to(nic, DeviceKind::switch_)) == 0.9);
  const EdgeId nvl = edge_to(gpu, DeviceKind::nvswitch);
  const double hopper = calibration_default().nvl_efficiency[static_cast<size_t>(GpuArch::hopper)];
  CHECK(c->copy_efficiency(two, nvl) == hopper);
  CHECK(c->multimem_efficiency(two, nvl) ==
        doctest::Approx(hopper * calibration_default().nvls_efficiency[static_cast<size_t>(NvlsDomain::hopper)]));
  Result<Calibration> slow = calibration_from_json({{"nvl_efficiency", {{"hopper", 0.5}}}}, "cal.json");
  REQUIRE(slow.ok());
  CHECK(slow->copy_efficiency(two, nvl) == 0.5);
  CHECK(slow->nvl_efficiency[static_cast<size_t>(GpuArch::blackwell)] ==
        calibration_default().nvl_efficiency[static_cast<size_t>(GpuArch::blackwell)]);
  // nvls_efficiency: one domain by name, or every domain with a number.
  Result<Calibration> one = calibration_from_json({{"nvls_efficiency", {{"blackwell_mnnvl", 0.5}}}}, "cal.json");
  REQUIRE(one.ok());
  CHECK(one->nvls_efficiency[static_cast<size_t>(NvlsDomain::blackwell_mnnvl)] == 0.5);
  CHECK(one->nvls_efficiency[static_cast<size_t>(NvlsDomain::hopper)] ==
        calibration_default().nvls_efficiency[static_cast<size_t>(NvlsDomain::hopper)]);
  Result<Calibration> all = calibration_from_json({{"nvls_efficiency", 0.7}}, "cal.json");
  REQUIRE(all.ok());
  for (double e : all->nvls_efficiency) CHECK(e == 0.7);
}

TEST_CASE("calibration: the NVLS domain of a GPU's NVSwitch link") {
  auto domain = [](const std::string& spec) {
    Cluster c = test::load_cluster(spec);
    VertexId gpu = c.hosts()[0].gpus[0];
    for (EdgeId e : c.out_edges(gpu))
      if (c.device(c.target(e)).kind == DeviceKind::nvswitch) return nvls_domain_of(c, e);
    FAIL("no NVSwitch on " << spec);
    return NvlsDomain::hopper;
  };
  CHECK(domain("dgx-h100:1") == NvlsDomain::hopper);
  CHECK(domain("hgx-h200:2") == NvlsDomain::hopper);
  CHECK(domain("hgx-b200:1") == NvlsDomain::blackwell);
  CHECK(domain("gb200-nvl72:1") == NvlsDomain::blackwell_mnnvl);
}

TEST_CASE("calibration: malformed overlays name the field") {
  auto err = [](const nlohmann::json& doc) {
    Result<Calibration> c = calibration_from_json(doc, "cal.json");
    REQUIRE_FALSE(c.ok());
    return c.error();
  };
  CHECK(err({{"efficency", {}}}) == "cal.json: unknown key 'efficency', did you mean 'efficiency'?");
  CHECK(err({{"efficiency", {{"NVL", 1.5}}}}) ==
        "cal.json: efficiency.NVL: expected a number from 0.00001 to 1, got 1.5");
  CHECK(err({{"efficiency", {{"NVL", "fast"}}}}) ==
        "cal.json: efficiency.NVL: expected a number from 0.00001 to 1, got \"fast\"");
  CHECK(err({{"efficiency", {{"NVLINK", 0.8}}}}).starts_with("cal.json: efficiency: unknown key 'NVLINK'"));
  CHECK(err({{"launch_us", -1}}) == "cal.json: launch_us: expected a number from 0 to 1000000, got -1");
  // Values that would overflow a duration or divide it by almost nothing are refused by name.
  CHECK(err({{"launch_us", 1e308}}) == "cal.json: launch_us: expected a number from 0 to 1000000, got 1e+308");
  CHECK(err({{"efficiency", {{"NET", 1e-300}}}}) ==
        "cal.json: efficiency.NET: expected a number from 0.00001 to 1, got 1e-300");
  CHECK(err({{"latency_us", {{"NET", -2}}}}) ==
        "cal.json: latency_us.NET: expected a number from 0 to 1000000, got -2");
  CHECK(err({{"latency_us", {{"IB", 2}}}}).starts_with("cal.json: latency_us: unknown key 'IB'"));
  CHECK(err({{"nvls_efficiency", 0}}) == "cal.json: nvls_efficiency: expected a number from 0.00001 to 1, got 0");
  CHECK(err({{"nvls_efficiency", {{"blackwell", 2}}}}) ==
        "cal.json: nvls_efficiency.blackwell: expected a number from 0.00001 to 1, got 2");
  CHECK(err({{"nvls_efficiency", {{"ampere", 0.5}}}}).starts_with("cal.json: nvls_efficiency: unknown key 'ampere'"));
  CHECK(err({{"nvl_efficiency", {{"hopper", 0}}}}) ==
        "cal.json: nvl_efficiency.hopper: expected a number from 0.00001 to 1, got 0");
  CHECK(err({{"nvl_efficiency", {{"h100", 0.8}}}}).starts_with("cal.json: nvl_efficiency: unknown key 'h100'"));
  CHECK(
      err({{"nvls_efficiency", "high"}}) ==
      "cal.json: nvls_efficiency: expected a number or an object of hopper, blackwell, hopper_mnnvl, blackwell_mnnvl, "
      "got \"high\"");
  CHECK(err(nlohmann::json::array()) == "cal.json: expected an object, got an array");
  auto dir = test::temp_dir("calibration");
  std::ofstream(dir / "broken.json") << "{\"launch_us\": 3,,}";
  Result<Calibration> broken = calibration_load((dir / "broken.json").string());
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().starts_with((dir / "broken.json").string() + ":1:"));
  CHECK(calibration_load((dir / "missing.json").string()).error().find("cannot read") != std::string::npos);
}

}  // namespace topoplan

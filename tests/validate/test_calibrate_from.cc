#include "validate/calibrate_from.h"

#include <doctest/doctest.h>

#include "tests/support.h"

namespace topoplan {
namespace {

std::string log_path(const std::string& name) {
  return (test::source_dir() / "tests" / "validate" / "nccl-tests" / name).string();
}

}  // namespace

TEST_CASE("calibrate_from: nccl-tests logs on their cluster, the held-out sizes judged by the tolerance") {
  CalibrateOptions o;
  o.logs = {log_path("all_reduce_perf-8xh100.log")};
  o.cluster = "dgx-h100:1";
  o.nodes = "h001";
  o.hold_out = "64M,1G";
  Result<CalibrationRun> run = calibrate_from(o);
  REQUIRE_MESSAGE(run.ok(), (run ? "" : run.error()));
  CHECK(run->sources == o.logs);
  REQUIRE(run->series.size() == 1);
  CHECK(run->series[0].op == CollectiveOp::all_reduce);
  CHECK(run->fit.calibration.source == "topoplan calibrate from " + o.logs[0]);
  REQUIRE(run->held.size() == 2);
  CHECK_FALSE(run->failed);
  o.tolerance = 0.001;
  CHECK(calibrate_from(o)->failed);
}

TEST_CASE("calibrate_from: each bad option is named, in the order the command checks them") {
  auto error = [](const CalibrateOptions& o) {
    Result<CalibrationRun> run = calibrate_from(o);
    REQUIRE_FALSE(run.ok());
    return run.error();
  };
  CalibrateOptions o;
  CHECK(error(o) == "give either --measured RESULTS.json or --nccl-tests LOG...");
  o.measured = "r.json";
  o.logs = {"b.log"};
  o.hold_out = "3B";
  CHECK(error(o) == "give either --measured RESULTS.json or --nccl-tests LOG...");
  o.measured.clear();
  CHECK(error(o).starts_with("--hold-out: 3B is not a whole number"));
  o.hold_out.clear();
  CHECK(error(o) == "--nccl-tests: give --cluster, the cluster the logs ran on");
  o.cluster = "dgx-h100:1";
  o.nodes = "h[2-1]";
  CHECK(error(o).starts_with("--nodes: "));
  o.nodes.clear();
  CHECK(error(o).starts_with("b.log: cannot read"));
  o.logs.clear();
  o.measured = "/nonexistent/r.json";
  CHECK(error(o).starts_with("/nonexistent/r.json: cannot read"));
}

}  // namespace topoplan

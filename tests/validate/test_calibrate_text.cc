#include "validate/calibrate_text.h"

#include <doctest/doctest.h>

#include "tests/support.h"

namespace topoplan {

TEST_CASE("calibration_run_text: the sources, the classes and series, the held-out verdict, what was written") {
  CalibrateOptions o;
  o.logs = {(test::source_dir() / "tests" / "validate" / "nccl-tests" / "all_reduce_perf-8xh100.log").string()};
  o.cluster = "dgx-h100:1";
  o.nodes = "h001";
  o.hold_out = "64M,1G";
  o.tolerance = 0.001;
  Result<CalibrationRun> run = calibrate_from(o);
  REQUIRE_MESSAGE(run.ok(), (run ? "" : run.error()));
  const std::string t = calibration_run_text(o, *run, "");
  CHECK(t.starts_with("calibrated from 1 nccl-tests log: 1 series, 1 fitted, "));
  CHECK(t.find("\n  NVLS hopper       1   450 GB/s  ") != std::string::npos);
  CHECK(t.find("fits of time = α + size / β, measured and by the calibrated model:\n") != std::string::npos);
  CHECK(t.find("\nheld out (predicted with the result; error = predicted / measured - 1):\n") != std::string::npos);
  CHECK(t.find("\nFAILED: tolerance 0%\n") != std::string::npos);
  CHECK(t.ends_with("\nnot written: give -o FILE to write the overlay\n"));
  CHECK(
      calibration_run_text(o, *run, "cal.json").ends_with("\nwrote cal.json: apply it with --calibration cal.json\n"));
  // Results name themselves, not a count.
  o.logs.clear();
  o.measured = "results.json";
  CHECK(calibration_run_text(o, *run, "").starts_with("calibrated from results.json: 1 series, "));
}

}  // namespace topoplan

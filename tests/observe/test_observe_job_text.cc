#include "observe/observe_job_text.h"

#include <doctest/doctest.h>

#include "tests/support.h"

namespace topoplan {
namespace {

TEST_CASE("observe_job_text: the step, each direction, the flagged links and the unmatched counters") {
  Result<std::unique_ptr<JobInputs>> in =
      job_inputs_load("dgx-h100:2", (test::data_dir() / "jobs" / "tiny-8.json").string(), "", {});
  REQUIRE_MESSAGE(in.ok(), (in ? "" : in.error()));
  PortRate busy, elsewhere;
  busy.key = "h001/nic0";
  busy.window_s = elsewhere.window_s = 60;
  busy.tx_Bps = 30e9;
  elsewhere.key = "nowhere";
  Result<PortMatch> m = port_match((*in)->cluster, {busy, elsewhere}, nullptr);
  REQUIRE(m.ok());
  Result<ObserveJob> r = observe_job(**in, std::move(*m), {});
  REQUIRE_MESSAGE(r.ok(), (r ? "" : r.error()));

  const std::string text = observe_job_text((*in)->cluster, "dgx-h100:2", *r, 2);
  CHECK(text.starts_with(r->score.job + " on dgx-h100:2, layout " + r->score.layout + ": step "));
  CHECK(text.find(" (the model's; --step-s for the measured one)\n1 port from 2 files, ") != std::string::npos);
  CHECK(text.find("flagged beyond 2x either way\n") != std::string::npos);
  CHECK(text.find("\nflagged:\n") != std::string::npos);
  CHECK(text.find("    the job's groups: none\n") != std::string::npos);
  CHECK(text.find("\ncounters that name no link of the cluster (--port-map maps them):\n  ") != std::string::npos);
  CHECK(text.ends_with("\n" + std::string(kObserveCorrelation) + "\n"));
}

}  // namespace
}  // namespace topoplan

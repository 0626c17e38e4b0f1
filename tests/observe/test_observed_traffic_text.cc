#include "observe/observed_traffic_text.h"

#include <doctest/doctest.h>

#include "tests/observe/job_log.h"
#include "tests/support.h"

namespace topoplan {
namespace {

std::string job_path() { return (test::data_dir() / "jobs/tiny-8.json").string(); }

// tiny-8 (tp 2, pp 2, dp 2) on one DGX H100: a log of its modelled traffic, seen by NCCL.
ObservedTraffic tiny_observed() {
  const Cluster c = test::load_cluster("dgx-h100:1");
  const Job job = *job_load(job_path());
  const StepTraffic model = *step_traffic(job, *compute_estimate(job, "H100"));
  Result<NcclLog> log = nccl_log_parse(test::job_log(c, job, *layout_default(c, 8), model), "job.log");
  REQUIRE_MESSAGE(log.ok(), log.error());
  Result<ObservedTraffic> t = observed_traffic(*log, std::nullopt);
  REQUIRE_MESSAGE(t.ok(), t.error());
  return *t;
}

TEST_CASE("traffic_beside_job: the job file's traffic beside the log; errors name the file") {
  const ObservedTraffic t = tiny_observed();
  Result<TrafficBesideJob> b = traffic_beside_job(t, job_path(), 1.5);
  REQUIRE_MESSAGE(b.ok(), (b ? "" : b.error()));
  CHECK(b->job == job_load(job_path())->name);
  CHECK(!b->rows.empty());

  const std::string missing = (test::temp_dir("traffic_beside_job") / "missing.json").string();
  Result<TrafficBesideJob> none = traffic_beside_job(t, missing, 1.5);
  REQUIRE(!none.ok());
  CHECK(none.error() == job_load(missing).error());
}

TEST_CASE("observed_traffic_text: a row per class of communicators, setup apart, the model beside") {
  const ObservedTraffic t = tiny_observed();
  const std::string alone = observed_traffic_text(t, std::nullopt);
  CHECK(alone.starts_with("NCCL "));
  CHECK(alone.find("ranks  comms  first") != std::string::npos);
  CHECK(alone.find("\nbefore the first step (setup), per communicator:\n") != std::string::npos);
  CHECK(alone.find("'s model") == std::string::npos);

  Result<TrafficBesideJob> b = traffic_beside_job(t, job_path(), 1.5);
  REQUIRE(b.ok());
  const std::string beside = observed_traffic_text(t, *b);
  CHECK(beside.starts_with(alone.substr(0, alone.find("\nbefore the first step"))));
  CHECK(beside.find("\nbeside " + b->job + "'s model (matched by group size and operation; per group and step):\n") !=
        std::string::npos);
}

}  // namespace
}  // namespace topoplan

#include "planner/transfer_beside_job_text.h"

#include <doctest/doctest.h>

#include "tests/support.h"

namespace topoplan {
namespace {

TEST_CASE("transfer_beside_job_text: the DCI each way, then the transfer on the spare and taking its share") {
  const std::string cluster = (test::data_dir() / "clusters/two-site-h100.json").string();
  const std::string job = (test::data_dir() / "jobs/llama3-70b.json").string();
  ModelSources model;
  model.fabric = "idle";
  Result<std::unique_ptr<JobInputs>> in = job_inputs_load(cluster, job, "", model);
  REQUIRE_MESSAGE(in.ok(), (in ? "" : in.error()));
  const TransferBesideJobRequest req{100e12, 0.9, "siteA", "siteB", 0.5, 3600.0, job};
  Result<TransferBesideJob> r = transfer_beside_job(**in, req);
  REQUIRE_MESSAGE(r.ok(), (r ? "" : r.error()));
  const std::string text = transfer_beside_job_text((*in)->cluster, req, *r);
  CHECK(text.rfind("100 TB from siteA to siteB beside llama3-70b (layout default, idle fabric): step ", 0) == 0);
  CHECK(text.find("\n  siteA -> siteB ") != std::string::npos);
  CHECK(text.find("\n  siteB -> siteA ") != std::string::npos);
  // The default layout keeps the job in siteA, so the DCI is the transfer's.
  CHECK(text.find("\nthe job sends nothing from siteA to siteB: the capacity is the transfer's\n") !=
        std::string::npos);
  CHECK(text.find("\non the spare capacity, the job first: ") != std::string::npos);
  CHECK(text.find(" x 0.9 efficiency on average\n") != std::string::npos);
  CHECK(text.find("\ntaking 50% of each link while the job sends (--share): ") != std::string::npos);
  CHECK(text.find("\nevery 1 h (--every): ") != std::string::npos);
  CHECK(text.find("other jobs' traffic") == std::string::npos);  // an idle fabric has none
}

}  // namespace
}  // namespace topoplan

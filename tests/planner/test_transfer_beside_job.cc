#include "planner/transfer_beside_job.h"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>

#include "planner/transfer_beside_job_json.h"
#include "tests/support.h"
#include "topology/transfer.h"

namespace topoplan {
namespace {

std::unique_ptr<JobInputs> llama70b_on_two_sites(const std::string& layout) {
  ModelSources idle;
  idle.fabric = "idle";
  Result<std::unique_ptr<JobInputs>> in =
      job_inputs_load((test::data_dir() / "clusters/two-site-h100.json").string(),
                      (test::data_dir() / "jobs/llama3-70b.json").string(), layout, idle);
  REQUIRE_MESSAGE(in.ok(), (in ? "" : in.error()));
  return std::move(*in);
}

// Hosts alternating between the sites, so that every data-parallel group crosses the DCI.
std::string interleaved_layout() {
  const std::filesystem::path path = test::temp_dir("transfer_beside_job") / "interleaved.txt";
  std::ofstream f(path);
  for (int i = 1; i <= 8; ++i) {
    char a[16], b[16];
    std::snprintf(a, sizeof a, "h%03d", i);
    std::snprintf(b, sizeof b, "h%03d", i + 64);
    f << a << " slots=8\n" << b << " slots=8\n";
  }
  return path.string();
}

TransferBesideJobRequest request() {
  TransferBesideJobRequest req;
  req.bytes = 100e12;
  req.from = "siteA";
  req.to = "siteB";
  req.job_where = "llama3-70b.json";
  return req;
}

TEST_CASE("transfer_beside_job: a job inside one site leaves the DCI to the transfer") {
  std::unique_ptr<JobInputs> in = llama70b_on_two_sites("");
  TransferBesideJobRequest req = request();
  req.every_s = 86400;
  Result<TransferBesideJob> r = transfer_beside_job(*in, req);
  REQUIRE_MESSAGE(r.ok(), (r ? "" : r.error()));
  const DciDirection& d = r->directions[0];
  CHECK(d.job_bytes_per_step == 0);
  CHECK(r->slowdown == doctest::Approx(1));
  CHECK(r->lost_s == doctest::Approx(0));
  CHECK(r->spare_s == doctest::Approx(transfer_estimate(req.bytes, d.capacity_GBps, 1, d.length_km).seconds));
  CHECK(r->propagation_s == doctest::Approx(d.length_km * kFibreUsPerKm * 1e-6));
  CHECK(r->every_share_of_capacity ==
        doctest::Approx(transfer_share_of_capacity(req.bytes, 1, 86400, d.capacity_GBps)));
  const nlohmann::json j = transfer_beside_job_to_json(in->cluster, req, *r);
  CHECK(j["every"]["finishes_on_spare"] == (r->spare_s <= 86400));
  CHECK(j["taking_share"]["job_slowdown"].get<double>() == doctest::Approx(1));
}

TEST_CASE("transfer_beside_job: taking a share of the DCI slows a job that crosses it") {
  std::unique_ptr<JobInputs> in = llama70b_on_two_sites(interleaved_layout());
  Result<TransferBesideJob> r = transfer_beside_job(*in, request());
  REQUIRE_MESSAGE(r.ok(), (r ? "" : r.error()));
  CHECK(r->directions[0].job_bytes_per_step > 0);
  CHECK(r->slowed_step_s > r->score.step_s);
  CHECK(r->slowdown == doctest::Approx(r->slowed_step_s / r->score.step_s));
  CHECK(r->lost_s == doctest::Approx(r->take_s * (1 - 1 / r->slowdown)));
  CHECK(r->take_GBps > 0);
  CHECK(std::isfinite(r->take_s));
}

TEST_CASE("transfer_beside_job: an unknown site is the sites' error, not the job's") {
  std::unique_ptr<JobInputs> in = llama70b_on_two_sites("");
  TransferBesideJobRequest req = request();
  req.to = "siteX";
  Result<TransferBesideJob> r = transfer_beside_job(*in, req);
  REQUIRE(!r.ok());
  CHECK(r.error().find("siteX") != std::string::npos);
  CHECK(r.error().find("llama3-70b.json") == std::string::npos);
}

}  // namespace
}  // namespace topoplan

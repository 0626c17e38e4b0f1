#include "planner/review_json.h"

#include <doctest/doctest.h>

#include "tests/support.h"

namespace topoplan {
namespace {

TEST_CASE("review_to_json: the verdict, the limits, the layout's score and the best as a plan") {
  const Cluster c = test::load_cluster("dgx-h100:4");
  Router router(c);
  const Job job = test::small_job();
  const Layout layout = *layout_default(c, job_ranks(job));
  ReviewLimits limits;
  limits.max_exposed_s = 5;
  Result<Review> r = review_layout(c, router, job, layout, {}, {}, limits);
  REQUIRE_MESSAGE(r.ok(), (r ? "" : r.error()));
  const nlohmann::json j = review_to_json(c, router, "dgx-h100:4", job.parallel.order, *r, limits, {}, {});
  CHECK(j["verdict"] == (r->pass ? "pass" : "fail"));
  CHECK(j["summary"] == r->verdict);
  CHECK(j["max_exposed_s"] == 5);
  CHECK(j["max_slowdown"] == *limits.max_slowdown);
  CHECK(j["order"] == job.parallel.order);
  CHECK(j["score"]["exposed_comm_s"].get<double>() == doctest::Approx(r->score.exposed_comm_s));
  CHECK(j["best"]["cluster"] == "dgx-h100:4");
  limits.max_slowdown.reset();
  CHECK(review_to_json(c, router, "dgx-h100:4", job.parallel.order, *r, limits, {}, {})["max_slowdown"].is_null());
}

}  // namespace
}  // namespace topoplan

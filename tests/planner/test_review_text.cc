#include "planner/review_text.h"

#include <doctest/doctest.h>

#include "tests/support.h"

namespace topoplan {
namespace {

TEST_CASE("review_text: the verdict first, the two layouts side by side, the best's hosts last") {
  const Cluster c = test::load_cluster("dgx-h100:4");
  Router router(c);
  const Job job = test::small_job();
  Result<Review> r = review_layout(c, router, job, *layout_default(c, job_ranks(job)), {}, {}, {});
  REQUIRE_MESSAGE(r.ok(), (r ? "" : r.error()));
  const std::string text = review_text(c, job.parallel.order, *r);
  CHECK(text.rfind(r->verdict + "\n\n", 0) == 0);
  CHECK(text.find("this layout") != std::string::npos);
  CHECK(text.find("planner's best") != std::string::npos);
  CHECK(text.find("\nmemory per GPU at each pipeline stage's peak") != std::string::npos);
  CHECK(text.find("\nfindings of this layout:\n") != std::string::npos);
  CHECK(text.find("\nthe planner's best: order " + r->best.job.parallel.order + ", hosts in rank order h") !=
        std::string::npos);
}

}  // namespace
}  // namespace topoplan

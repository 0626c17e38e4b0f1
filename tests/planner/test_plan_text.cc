#include "planner/plan_text.h"

#include <doctest/doctest.h>

#include "tests/support.h"

namespace topoplan {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST_CASE("plan_text: the step, the hosts, the comparison, the search and the files written") {
  const Cluster c = test::load_cluster("dgx-h100:4");
  Router router(c);
  Result<Plan> p = plan_job(c, router, test::small_job(), PlanRequest{});
  REQUIRE_MESSAGE(p.ok(), (p ? "" : p.error()));
  const std::string text = plan_text(c, "dgx-h100:4", *p, {"out/plan.json"});
  CHECK(text.rfind("plan: " + p->job.name + " on dgx-h100:4, 8 ranks on ", 0) == 0);
  CHECK(has(text, "\nhosts: "));
  CHECK(has(text, "\nmemory per GPU at each pipeline stage's peak (H100-SXM5, 79.65 GiB):\n  stage "));
  CHECK(has(text, "\ncompared (exposed communication per step):\n"));
  CHECK(has(text, "\n  plan "));
  CHECK(has(text, "\norder strings tried"));
  CHECK(has(text, "\nsearch: "));
  CHECK(has(text, "\nfindings:\n"));
  CHECK(text.size() > std::string("\nwrote: out/plan.json\n").size());
  CHECK(text.substr(text.size() - std::string("\nwrote: out/plan.json\n").size()) == "\nwrote: out/plan.json\n");
  CHECK(!has(plan_text(c, "dgx-h100:4", *p, {}), "wrote:"));
}

}  // namespace
}  // namespace topoplan

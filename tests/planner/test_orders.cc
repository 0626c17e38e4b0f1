#include "planner/orders.h"

#include <doctest/doctest.h>

#include "tests/support.h"

using namespace topoplan;

TEST_CASE("orders: one candidate per distinct placement, the job's own first") {
  Job j = test::small_job();  // tp 2 pp 2 dp 2, cp = ep = 1
  Result<std::vector<std::string>> o = orders_distinct(j, {"tp", "dp-cp", "pp"});
  REQUIRE(o.ok());
  // cp and ep have size 1: the 3! orders of tp, dp and pp remain.
  CHECK(o->size() == 6);
  CHECK(o->front() == "tp-cp-ep-dp-pp");
  // Each class is named by the order nearest Megatron's default.
  CHECK(std::find(o->begin(), o->end(), "tp-cp-ep-pp-dp") != o->end());

  Job moe = j;
  moe.model.moe.experts = 8;
  moe.model.moe.top_k = 2;
  moe.model.moe.ffn_hidden = 1024;
  moe.parallel.ep = 2;
  moe.parallel.expert_tp = 1;
  Result<std::vector<std::string>> m = orders_distinct(moe, {"tp", "dp-cp", "pp", "expert.ep", "expert.dp"});
  REQUIRE(m.ok());
  CHECK(m->size() > 6);  // where ep sits now matters
  for (const std::string& order : *m) CHECK(RankGroups::make(job_parallel_sizes(moe), order).ok());
}

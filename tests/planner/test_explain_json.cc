#include "planner/explain_json.h"

#include <doctest/doctest.h>

#include "tests/support.h"

namespace topoplan {
namespace {

TEST_CASE("explain_json: a group split over hosts and a link it crosses") {
  const Cluster c = test::load_cluster("dgx-h100:16");
  Router router(c);
  Result<Job> job = job_load((test::data_dir() / "jobs" / "llama3-70b.json").string());
  REQUIRE(job.ok());
  job->parallel.order = "dp-tp-cp-ep-pp";
  const Layout layout = *layout_default(c, job_ranks(*job));
  Result<std::unique_ptr<Explainer>> ex = Explainer::make(c, router, *job, layout, {}, {});
  REQUIRE_MESSAGE(ex.ok(), (ex ? "" : ex.error()));

  Result<GroupExplanation> g = (*ex)->group({"tp", 0});
  REQUIRE(g.ok());
  const nlohmann::json gj = group_explanation_json(c, *g);
  CHECK(gj["kind"] == "tp");
  CHECK(gj["index"] == 0);
  CHECK(gj["ranks"] == nlohmann::json(g->ranks));
  CHECK(gj["placement"].size() == g->ranks.size());
  CHECK(gj["slowest_link"]["kind"] == "NET");
  CHECK(gj["paths"].size() == g->paths.size());
  CHECK(gj["moves"].size() == g->moves.size());

  Result<LinkExplanation> l = (*ex)->link("h001/nic0 -> leaf0");
  REQUIRE(l.ok());
  const nlohmann::json lj = link_explanation_json(c, *l);
  CHECK(lj["name"] == c.edge_name(l->edge));
  CHECK(lj["uses"].size() == l->uses.size());
  CHECK(lj["phases"].size() == l->phases.size());
}

}  // namespace
}  // namespace topoplan

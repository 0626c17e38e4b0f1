#include "planner/explain_text.h"

#include <doctest/doctest.h>

#include "planner/explain_view.h"
#include "tests/support.h"

namespace topoplan {
namespace {

struct Explained {
  Cluster c = test::load_cluster("dgx-h100:16");
  Router router{c};
  Job job;
  Layout layout;
  std::unique_ptr<Explainer> ex;

  Explained() {
    Result<Job> j = job_load((test::data_dir() / "jobs" / "llama3-70b.json").string());
    REQUIRE(j.ok());
    job = std::move(*j);
    job.parallel.order = "dp-tp-cp-ep-pp";
    layout = *layout_default(c, job_ranks(job));
    Result<std::unique_ptr<Explainer>> e = Explainer::make(c, router, job, layout, {}, {});
    REQUIRE_MESSAGE(e.ok(), (e ? "" : e.error()));
    ex = std::move(*e);
  }
};

TEST_CASE("explain_text: a group in full, a rank's groups by their summary") {
  Explained x;
  Result<GroupExplanation> g = x.ex->group({"tp", 0});
  REQUIRE(g.ok());
  const double exposed = x.ex->score().exposed_comm_s;
  const std::string full = group_explanation_text(x.c, *g, exposed);
  CHECK(full.starts_with(g->summary + "\n  why: "));
  CHECK(full.find("\n  placed on: ") != std::string::npos);
  CHECK(full.find("\n  slowest link: ") != std::string::npos);

  const std::string one = explain_groups_text(x.c, x.job, x.layout, exposed, {*g}, ExplainAsked::group, -1);
  CHECK(one.starts_with(x.job.name + ", layout " + x.layout.source + ", order dp-tp-cp-ep-pp: exposed communication "));
  CHECK(one.find("\n\n" + full) != std::string::npos);

  Result<std::vector<GroupExplanation>> r = x.ex->rank(0);
  REQUIRE(r.ok());
  const std::string rank = explain_groups_text(x.c, x.job, x.layout, exposed, *r, ExplainAsked::rank, 0);
  CHECK(rank.find("\nrank 0 is in:\n") != std::string::npos);
  CHECK(rank.find("placed on:") == std::string::npos);

  Result<std::vector<GroupExplanation>> top = x.ex->costliest(2);
  REQUIRE(top.ok());
  CHECK(explain_groups_text(x.c, x.job, x.layout, exposed, *top, ExplainAsked::costliest, -1)
            .find("\nthe 2 groups that cost the most over their best case:\n") != std::string::npos);
}

TEST_CASE("explain_text: a link and what crosses it") {
  Explained x;
  Result<LinkExplanation> l = x.ex->link("h001/nic0 -> leaf0");
  REQUIRE(l.ok());
  const std::string text = link_explanation_text(x.c, *l);
  CHECK(text.starts_with(x.c.edge_name(l->edge) + " ("));
  CHECK(text.find(") per step:\n") != std::string::npos);
}

TEST_CASE("explain_view: the groups' paths and hosts in blue, the page on the first group") {
  Explained x;
  Result<GroupExplanation> g = x.ex->group({"tp", 0});
  REQUIRE(g.ok());
  const DotLoad load = explain_dot_load(x.c, x.ex->score(), {*g}, std::nullopt);
  CHECK(load.title.starts_with(x.job.name + ": tp 0 in blue; "));
  CHECK(load.highlight_edges == g->path_edges);
  CHECK(load.highlight_hosts.size() == g->gpus.size());
  CHECK(load.utilization.size() == x.c.num_edges());

  Result<LinkExplanation> l = x.ex->link("h001/nic0 -> leaf0");
  REQUIRE(l.ok());
  const DotLoad one = explain_dot_load(x.c, x.ex->score(), {}, l->edge);
  CHECK(one.highlight_edges == std::vector<EdgeId>{l->edge});
  CHECK(one.highlight_hosts.empty());

  const ReportFocus focus = explain_focus({*g});
  CHECK(focus.kind == "tp");
  CHECK(focus.index == 0);
  CHECK(focus.verdict == g->summary);
  CHECK(explain_focus({}).kind.empty());
}

}  // namespace
}  // namespace topoplan

#include "planner/explain.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "tests/support.h"

using namespace topoplan;

namespace {

struct Setup {
  Cluster cluster = test::load_cluster("dgx-h100:16");
  Router router{cluster};
  Job job;
  Layout layout;
  explicit Setup(const std::string& order) {
    Result<Job> j = job_load((test::data_dir() / "jobs" / "llama3-70b.json").string());
    REQUIRE(j.ok());
    job = *j;
    job.parallel.order = order;
    layout = *layout_default(cluster, job_ranks(job));
  }
  std::unique_ptr<Explainer> explainer() {
    Result<std::unique_ptr<Explainer>> e = Explainer::make(cluster, router, job, layout, {}, {});
    REQUIRE_MESSAGE(e.ok(), (e ? "" : e.error()));
    return std::move(*e);
  }
};

}  // namespace

TEST_CASE("explain: a TP group the order string splits over hosts") {
  // dp before tp: TP ranks are 4 apart, so each TP group spans 4 hosts.
  Setup s("dp-tp-cp-ep-pp");
  auto ex = s.explainer();
  Result<GroupExplanation> g = ex->group({"tp", 0});
  REQUIRE_MESSAGE(g.ok(), (g ? "" : g.error()));
  CHECK(g->ranks == std::vector<int>{0, 4, 8, 12, 16, 20, 24, 28});
  CHECK(g->why.starts_with("order dp-tp-cp-ep-pp puts dp 4 before tp: the group's ranks are 4 apart (0,4,8,12, ...)"));
  // Its ring crosses the network: a NET hop on the slowest link and on a path.
  REQUIRE(g->has_slowest);
  CHECK(s.cluster.link(g->slowest).kind == LinkKind::NET);
  bool net = false;
  for (const PairPath& p : g->paths) net = net || p.route.path_class == PathClass::NET;
  CHECK(net);
  // Every hop of every pair's paths, once, for drawings.
  CHECK(std::is_sorted(g->path_edges.begin(), g->path_edges.end()));
  CHECK(std::adjacent_find(g->path_edges.begin(), g->path_edges.end()) == g->path_edges.end());
  for (const PairPath& p : g->paths)
    for (const Hop& h : p.route.hops) CHECK(std::binary_search(g->path_edges.begin(), g->path_edges.end(), h.edge));
  // Inside one NVLink domain it would be several times faster.
  REQUIRE(g->inside.size() == 3);
  CHECK(g->inside[0].level == Level::domain);
  CHECK(g->inside[0].possible);
  CHECK(g->inside[0].alone_us < 0.5 * g->alone_us);
  // The moves: another order string, every TP group on one host (all 16 are split alike; a swap
  // for this group alone would split another and is not offered), the planner.
  REQUIRE(g->moves.size() == 3);
  CHECK(g->moves[0].order.starts_with("tp"));
  CHECK(g->moves[0].exposed_s < ex->score().exposed_comm_s);
  const Move& every = g->moves[1];
  CHECK(every.what == "every tp group on one host (16 of the 16 span hosts)");
  REQUIRE_FALSE(every.moves_to.empty());
  // The job's exposed time after the move is what score gives for the moved layout.
  Layout moved = s.layout;
  for (const auto& [rank, gpu] : every.moves_to) moved.gpu_of_rank[static_cast<size_t>(rank)] = gpu;
  Router router(s.cluster);
  Result<JobScore> after = score_job(s.cluster, router, s.job, moved);
  REQUIRE(after.ok());
  CHECK(every.exposed_s == doctest::Approx(after->exposed_comm_s).epsilon(1e-9));
  std::vector<int> hosts;
  for (int r : g->ranks) hosts.push_back(s.cluster.device(moved.gpu_of_rank[static_cast<size_t>(r)]).host);
  CHECK(std::count(hosts.begin(), hosts.end(), hosts.front()) == 8);
}

TEST_CASE("explain: ranks, links, the costliest groups, and bad selectors") {
  Setup s("tp-cp-ep-dp-pp");
  auto ex = s.explainer();
  Result<std::vector<GroupExplanation>> rank = ex->rank(9);
  REQUIRE(rank.ok());
  std::vector<std::string> kinds;
  for (const GroupExplanation& g : *rank) kinds.push_back(g.ref.kind);
  CHECK(kinds == std::vector<std::string>{"tp", "dp", "pp"});
  CHECK((*rank)[0].summary.starts_with("tp 1 (ranks 8-15) on h002: all_gather"));
  Result<std::vector<GroupExplanation>> top = ex->costliest(3);
  REQUIRE(top.ok());
  CHECK(top->size() == 3);
  CHECK((*top)[0].excess_s >= (*top)[1].excess_s);
  Result<LinkExplanation> link = ex->link("h001/nic0 -> leaf0");
  REQUIRE(link.ok());
  REQUIRE_FALSE(link->uses.empty());
  CHECK(link->uses[0].item.kind != TrafficKind::tp);
  for (const auto& p : link->phases) CHECK(p.utilization >= 0);
  CHECK(ex->group({"tp", 16}).error() == "tp:16: the job has 16 tp groups (0-15)");
  CHECK(ex->rank(128).error() == "--rank: the job has ranks 0-127, got 128");
  CHECK(ex->link("leaf0 spine0").error() == "--link: expected 'a -> b' as score lists links, got 'leaf0 spine0'");
  CHECK(ex->link("leaf0 -> leaf1").error() == "--link: 'leaf0' and 'leaf1' are not linked");
  CHECK(group_ref_parse("tq:1").error() ==
        "--group: unknown kind 'tq', did you mean 'tp'? (kinds: tp, cp, dp, pp, ep, etp, edp)");
  CHECK(group_ref_parse("tp").error() ==
        "--group: expected KIND:INDEX such as tp:3 (kinds: tp, cp, dp, pp, ep, etp, edp), got 'tp'");
  CHECK(group_ref_parse("tp:x").error() == "--group: expected a group index after 'tp:', got 'x'");
  CHECK(group_ref_parse("pp:2")->index == 2);
}

TEST_CASE("explain: a host-list layout names each line once, however many ranks it places") {
  Setup s("tp-cp-ep-dp-pp");
  // Four ranks per host and line: TP group 0 (ranks 0-7) is split over h001 and h002, both by line 1.
  Result<Layout> l = layout_parse("h[001-016] slots=4\nh[001-016] slots=4\n", "hosts.txt", s.cluster, 128);
  REQUIRE_MESSAGE(l.ok(), (l ? "" : l.error()));
  s.layout = std::move(*l);
  Result<GroupExplanation> g = s.explainer()->group({"tp", 0});
  REQUIRE_MESSAGE(g.ok(), (g ? "" : g.error()));
  CHECK(g->why == "the layout hosts.txt puts ranks 0-3 on h001 (line 1), ranks 4-7 on h002 (line 1)");
  Result<GroupExplanation> last = s.explainer()->group({"tp", 15});
  REQUIRE(last.ok());
  CHECK(last->why == "the layout hosts.txt puts ranks 120-123 on h015 (line 2), ranks 124-127 on h016 (line 2)");
}

namespace {

// Every move offered lowers the job's exposed communication, and a kind-wide move's figure is
// what score gives for the layout it describes.
void check_moves(const Cluster& c, const Job& job, const Layout& layout, size_t groups) {
  Router router(c);
  Result<std::unique_ptr<Explainer>> ex = Explainer::make(c, router, job, layout, {}, {});
  REQUIRE_MESSAGE(ex.ok(), (ex ? "" : ex.error()));
  const double now = (*ex)->score().exposed_comm_s;
  Result<std::vector<GroupExplanation>> top = (*ex)->costliest(groups);
  REQUIRE_MESSAGE(top.ok(), (top ? "" : top.error()));
  for (const GroupExplanation& g : *top)
    for (const Move& m : g.moves) {
      CAPTURE(g.summary);
      CAPTURE(m.what);
      CHECK(m.exposed_s < now);
      if (m.moves_to.empty()) continue;
      Layout moved = layout;
      for (const auto& [rank, gpu] : m.moves_to) moved.gpu_of_rank[static_cast<size_t>(rank)] = gpu;
      Result<JobScore> after = score_job(c, router, job, moved);
      REQUIRE(after.ok());
      CHECK(m.exposed_s == doctest::Approx(after->exposed_comm_s).epsilon(1e-9));
    }
}

}  // namespace

TEST_CASE("explain: no move offered makes the step worse (a split TP, DP across pods, the bundled jobs)") {
  const Cluster pods = test::load_cluster((test::data_dir() / "clusters" / "pods-16-h100.json").string());
  Result<Job> job = job_load((test::data_dir() / "jobs" / "llama3-70b.json").string());
  REQUIRE(job.ok());
  for (const char* name : {"tp-split.hosts", "pod-interleaved.hosts"}) {
    CAPTURE(name);
    const std::string text = test::read_file(test::source_dir() / "tests" / "golden" / "layouts" / name);
    Result<Layout> l = layout_parse(text, name, pods, job_ranks(*job));
    REQUIRE_MESSAGE(l.ok(), (l ? "" : l.error()));
    check_moves(pods, *job, *l, 3);
  }
  // The split TP: one swap only splits another group; every TP group on one host is the fix.
  {
    const std::string text = test::read_file(test::source_dir() / "tests" / "golden" / "layouts" / "tp-split.hosts");
    Layout l = *layout_parse(text, "tp-split.hosts", pods, job_ranks(*job));
    Router router(pods);
    Result<GroupExplanation> g = (*Explainer::make(pods, router, *job, l, {}, {}))->group({"tp", 1});
    REQUIRE(g.ok());
    REQUIRE_FALSE(g->moves.empty());
    CHECK(g->moves.front().what == "every tp group on one host (16 of the 16 span hosts)");
  }
  // Each bundled job with its axes reversed (data parallelism innermost, pipeline last as Megatron needs for MoE) on the ranks in order.
  for (const auto& entry : std::filesystem::directory_iterator(test::data_dir() / "jobs")) {
    Result<Job> j = job_load(entry.path().string());
    REQUIRE(j.ok());
    // The big ones at 1024 ranks, fewer data-parallel replicas of the same model and stages.
    while (job_ranks(*j) > 1024) j->parallel.dp /= 2;
    const int world = job_ranks(*j);
    CAPTURE(entry.path().filename().string());
    const Cluster c = test::load_cluster("dgx-h100:" + std::to_string(std::max(1, world / 8)));
    j->parallel.order = "dp-ep-cp-tp-pp";
    Result<Layout> l = layout_default(c, world);
    REQUIRE(l.ok());
    check_moves(c, *j, *l, 3);
  }
}

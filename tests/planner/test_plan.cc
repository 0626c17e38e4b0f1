#include "planner/plan.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "planner/orders.h"
#include "planner/plan_json.h"
#include "tests/support.h"

using namespace topoplan;

namespace {

// data/clusters/pods-16-h100.json: 16 DGX H100, leaf groups of 2 hosts, pods of 4, 4:1 above.
Cluster small_pods() { return test::load_cluster((test::data_dir() / "clusters" / "pods-16-h100.json").string()); }

// A 16-layer dense model, TP 8 on each host, no overlap so data parallelism shows.
Job dense(int pp, int dp) {
  Job j = test::small_job();
  j.name = "dense";
  j.model.layers = 16;
  j.model.hidden = 4096;
  j.model.ffn_hidden = 16384;
  j.model.heads = j.model.kv_heads = 32;
  j.model.head_dim = 128;
  j.parallel.tp = j.parallel.expert_tp = 8;
  j.parallel.pp = pp;
  j.parallel.dp = dp;
  j.parallel.overlap_grad_reduce = j.parallel.overlap_param_gather = false;
  j.training.global_batch = 4 * dp;
  return j;
}

Plan plan_of(const Cluster& c, const Router& r, const Job& job, const PlanRequest& req) {
  Result<Plan> p = plan_job(c, r, job, req);
  REQUIRE_MESSAGE(p.ok(), (p ? "" : p.error()));
  return std::move(*p);
}

}  // namespace

TEST_CASE("plan: a pod-interleaved allocation is regrouped along the fabric") {
  Cluster c = small_pods();
  Router r(c);
  PlanRequest req;
  req.free = {0, 4, 8, 12, 1, 5, 9, 13};  // two hosts from each pod, listed round-robin
  Plan p = plan_of(c, r, dense(2, 4), req);
  REQUIRE(p.baselines.size() == 2);
  CHECK(p.baselines[0].name == "input order");
  CHECK(p.baselines[0].order == "tp-cp-ep-dp-pp");
  CHECK(p.baselines[1].name == "best order on the input hosts");
  const double plan_s = p.score.exposed_comm_s, input_s = p.baselines[0].exposed_s;
  MESSAGE("input " << input_s << " s, best order on input " << p.baselines[1].exposed_s << " s, plan " << plan_s
                   << " s, lower bound " << *p.lower_bound_s << " s");
  CHECK(plan_s < 0.9 * input_s);
  CHECK(plan_s <= p.baselines[1].exposed_s * (1 + 1e-9));
  CHECK(*p.lower_bound_s <= plan_s * (1 + 1e-9));
  std::vector<int> hosts = p.host_order;
  std::sort(hosts.begin(), hosts.end());
  CHECK(hosts == std::vector<int>{0, 1, 4, 5, 8, 9, 12, 13});
  CHECK(p.layout.world_size() == 64);
  CHECK(p.candidates.size() == 6);
  CHECK(p.stats.searched == 2);
}

TEST_CASE("plan: optimal where every layout can be tried, for every seed") {
  Cluster c = small_pods();
  Router r(c);
  const Job job = dense(2, 2);
  const std::vector<int> hosts = {0, 4, 8, 1};  // pods 0, 1, 2: one pod has two hosts
  // Every order string and every host order.
  Result<ComputeEstimate> ce = compute_estimate(job, "H100-SXM5");
  REQUIRE(ce.ok());
  Result<StepTraffic> traffic = step_traffic(job, *ce);
  REQUIRE(traffic.ok());
  std::vector<std::string> tokens;
  for (const TrafficItem& it : traffic->items) tokens.push_back(it.group);
  Result<std::vector<std::string>> orders = orders_distinct(job, tokens);
  REQUIRE(orders.ok());
  double best = 1e300;
  std::vector<int> perm = hosts;
  std::sort(perm.begin(), perm.end());
  do {
    Layout l;
    for (int h : perm)
      for (VertexId g : c.hosts()[static_cast<size_t>(h)].gpus) l.gpu_of_rank.push_back(g);
    for (const std::string& o : *orders) {
      Job j = job;
      j.parallel.order = o;
      Result<std::unique_ptr<ScoreState>> s = ScoreState::make(c, r, j, l);
      REQUIRE(s.ok());
      best = std::min(best, (*s)->exposed_us() / 1e6);
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    PlanRequest req;
    req.free = hosts;
    req.seed = seed;
    Plan p = plan_of(c, r, job, req);
    CAPTURE(seed);
    CHECK(p.score.exposed_comm_s <= best * (1 + 1e-9));
  }
}

TEST_CASE("plan: the same inputs and seed give the same plan file") {
  Cluster c = small_pods();
  Router r(c);
  PlanRequest req;
  req.free = {0, 4, 8, 12, 1, 5, 9, 13};
  req.seed = 7;
  const Job job = dense(2, 4);
  const std::string first = plan_to_json(c, r, "small", plan_of(c, r, job, req), req).dump();
  const std::string second = plan_to_json(c, r, "small", plan_of(c, r, job, req), req).dump();
  CHECK(first == second);
}

TEST_CASE("plan: rules, exclusions and what cannot be") {
  Cluster c = small_pods();
  Router r(c);
  SUBCASE("tp-in-domain asked for with TP larger than any NVLink domain") {
    Job j = dense(1, 4);
    j.parallel.tp = j.parallel.expert_tp = 16;
    j.parallel.dp = 2;
    j.model.heads = j.model.kv_heads = 32;
    PlanRequest req;
    req.keep = {kKeepTpInDomain};
    req.keep_given = true;
    Result<Plan> p = plan_job(c, r, j, req);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error() == "--keep tp-in-domain cannot hold: TP 16 is larger than the largest NVLink domain (8 GPUs)");
    req.keep_given = false;  // by default the rule is off where it cannot hold
    CHECK(plan_job(c, r, j, req).ok());
  }
  SUBCASE("an excluded GPU runs no rank, and the planner prefers whole hosts") {
    Result<DownSet> down = down_parse(c, {"h001/gpu0", "leaf0 <-> spine0"});
    REQUIRE(down.ok());
    Router avoiding(c, *down);
    PlanRequest req;
    req.down = *down;
    Plan p = plan_of(c, avoiding, dense(1, 2), req);
    for (VertexId g : p.layout.gpu_of_rank) CHECK(c.device(g).host != 0);
    CHECK(p.findings.empty() == p.score.findings.empty());
  }
  SUBCASE("an allocation smaller than the job") {
    PlanRequest req;
    req.free = {0, 1};
    Result<Plan> p = plan_job(c, r, dense(2, 4), req);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error() == "the job needs 64 GPUs; the 2 free hosts have 16 up");
  }
  SUBCASE("keep rules parse with did-you-mean") {
    CHECK(keep_rules_parse("none")->empty());
    CHECK(keep_rules_parse("tp-in-domain,dp-only-across-sites")->size() == 2);
    Result<std::vector<std::string>> bad = keep_rules_parse("tp-in-domian");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error() ==
          "--keep: unknown rule 'tp-in-domian', did you mean 'tp-in-domain'? (rules: tp-in-domain, "
          "dp-only-across-sites, or none)");
  }
}

TEST_CASE("plan: only data parallelism crosses sites") {
  Cluster c = test::load_cluster((test::data_dir() / "clusters" / "two-site-h100.json").string());
  Router r(c);
  const Job job = dense(2, 4);  // 8 hosts: pipelines of 2 hosts
  PlanRequest req;
  req.free = {0, 64, 1, 65, 2, 66, 3, 67};  // four hosts at each site, interleaved
  Plan p = plan_of(c, r, job, req);
  CHECK(p.rules.dp_only_across_sites);
  CHECK(p.violations == 0);
  Result<RankGroups> g = RankGroups::make(job_parallel_sizes(p.job), p.job.parallel.order);
  REQUIRE(g.ok());
  for (const char* token : {"tp", "pp"}) {
    const GroupList groups = g->groups(token).value();
    for (const std::vector<int>& group : groups) {
      const int site = c.device(p.layout.gpu_of_rank[static_cast<size_t>(group.front())]).site;
      for (int rank : group) CHECK(c.device(p.layout.gpu_of_rank[static_cast<size_t>(rank)]).site == site);
    }
  }
  // Three hosts at one site, five at the other: one pipeline has to straddle.
  req.free = {0, 1, 2, 64, 65, 66, 67, 68};
  Plan straddle = plan_of(c, r, job, req);
  CHECK(straddle.violations > 0);
  CHECK(straddle.findings.front().message.find("dp-only-across-sites") != std::string::npos);
  req.keep = {kKeepDpOnlyAcrossSites};
  req.keep_given = true;
  Result<Plan> refused = plan_job(c, r, job, req);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().starts_with("--keep cannot hold: "));
}

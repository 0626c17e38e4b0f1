// Candidate allocations ranked: each candidate's figures are the planner's on exactly its hosts,
// so the ranking is the one plan gives candidate by candidate; candidates that a symmetry of the
// fabric maps onto each other share one plan, and a fresh plan on each agrees.
#include "planner/candidates.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "planner/allocation_pattern.h"
#include "planner/candidates_text.h"
#include "tests/support.h"

namespace topoplan {
namespace {

// Two pods of 16 hosts in leaf groups of 8, 7:1 above the pods.
Cluster pods_cluster(const std::string& name) {
  const auto dir = test::temp_dir(name);
  std::ofstream(dir / "pods.json") << R"({"name": "pods-64", "node": "dgx-h100", "nodes": 64,
    "fabric": {"kind": "rail", "nodes_per_su": 8, "nodes_per_pod": 16, "pod_oversubscription": 7}})";
  return test::load_cluster((dir / "pods.json").string());
}

// llama3-70b without overlap or virtual stages: its data-parallel traffic shows where hosts sit.
Job exposed_job() {
  Job job = *job_load((test::data_dir() / "jobs" / "llama3-70b.json").string());
  job.parallel.overlap_grad_reduce = job.parallel.overlap_param_gather = false;
  job.parallel.virtual_pipeline_stages = 1;
  job.parallel.tp = 4;
  job.parallel.dp = 8;  // 128 GPUs, 16 hosts
  return job;
}

// plan --nodes on a candidate's hosts, afresh, with everything beside it.
Result<Plan> planned_on(const Cluster& c, const Router& r, const Job& job, const CandidateAllocation& cand) {
  PlanRequest req;
  req.free = cand.hosts;
  return plan_job(c, r, job, req);
}

// Each candidate's figures are plan's on its hosts: the step, the exposed time, the order string
// and the hosts used, or plan's reason where it cannot hold the job.
void check_as_planned(const Cluster& c, const Router& r, const Job& job, const std::vector<CandidateAllocation>& cands,
                      const CandidateRanking& k) {
  for (size_t i = 0; i < cands.size(); ++i) {
    const Result<Plan> p = planned_on(c, r, job, cands[i]);
    const CandidateResult& got = k.results[i];
    INFO("candidate " << cands[i].id);
    CHECK(got.holds == p.ok());
    if (!p) {
      CHECK(got.why == p.error());
      CHECK(got.rank == 0);
      continue;
    }
    CHECK(got.step_s == p->score.step_s);
    CHECK(got.exposed_s == p->score.exposed_comm_s);
    CHECK(got.order == p->job.parallel.order);
    std::vector<int> used = p->host_order;
    std::sort(used.begin(), used.end());
    std::vector<int> listed = got.hosts;
    std::sort(listed.begin(), listed.end());
    CHECK(listed == used);
  }
}

}  // namespace

TEST_CASE("candidates: the file, hostlists and JSON lines, errors naming the line") {
  const Cluster c = test::load_cluster("dgx-h100:8");
  Result<std::vector<CandidateAllocation>> ok = candidates_parse(c,
                                                                 "# from the scheduler\n"
                                                                 "h[001-004]\n"
                                                                 "\n"
                                                                 "  {\"id\": \"rack2\", \"hosts\": \"h[005-008]\"}\n"
                                                                 "{\"id\": 7, \"hosts\": [\"h002\", \"h001\"]}\n",
                                                                 "c.txt");
  REQUIRE_MESSAGE(ok.ok(), (ok ? "" : ok.error()));
  REQUIRE(ok->size() == 3);
  CHECK((*ok)[0].id == "line 2");
  CHECK((*ok)[0].hosts == std::vector<int>{0, 1, 2, 3});
  CHECK((*ok)[1].id == "rack2");
  CHECK((*ok)[1].line == 4);
  CHECK((*ok)[2].id == "7");
  CHECK((*ok)[2].hosts == std::vector<int>{1, 0});

  auto error = [&](const std::string& text) {
    Result<std::vector<CandidateAllocation>> r = candidates_parse(c, text, "c.txt");
    REQUIRE_FALSE(r.ok());
    return r.error();
  };
  CHECK(error("h[001-002]\nh[001-009]\n").starts_with("c.txt:2: no host 'h009' in the cluster"));
  CHECK(error("h001,h002,h001\n") == "c.txt:1: host 'h001' is listed twice");
  CHECK(error("h[001-\n").starts_with("c.txt:1: "));
  CHECK(error("{\"id\": \"a\", \"hosts\": \"h001\"\n").starts_with("c.txt:1: column "));
  CHECK(error("{\"id\": \"a\"}\n") == "c.txt:1: missing key 'hosts'");
  CHECK(error("{\"id\": \"a\", \"host\": \"h001\"}\n").starts_with("c.txt:1: unknown key 'host'"));
  CHECK(error("{\"id\": \"\", \"hosts\": \"h001\"}\n").starts_with("c.txt:1: id: expected a non-empty string"));
  CHECK(error("{\"hosts\": [\"h001\", 2]}\n").starts_with("c.txt:1: hosts[1]: expected a host name, got 2"));
  CHECK(error("{\"hosts\": 3}\n").starts_with("c.txt:1: hosts: expected a hostlist"));
  CHECK(error("{\"id\": \"a\", \"hosts\": \"h001\"}\n{\"id\": \"a\", \"hosts\": \"h002\"}\n") ==
        "c.txt:2: id 'a' is already used on line 1");
  CHECK(error("# nothing\n\n") == "c.txt: no candidates (one hostlist or JSON object per line)");
  CHECK(candidates_load(c, "/nonexistent/c.txt").error().starts_with("/nonexistent/c.txt"));
}

TEST_CASE("candidates: the ranking is plan's, candidate by candidate") {
  const Cluster c = pods_cluster("candidates-rank");
  const Router r(c);
  const Job job = exposed_job();
  const Result<std::vector<CandidateAllocation>> cands = candidates_parse(c,
                                                                          "h[001-008,017-024]\n"    // 2 pods, 8:8
                                                                          "h[001-016]\n"            // one pod
                                                                          "h[009-016,001-008]\n"    // the same hosts
                                                                          "h[001-008,010-016,017]\n"  // 15:1
                                                                          "h[001-004,009-012,017-024]\n"
                                                                          "h[005-008,013-016,017-024]\n"  // alike
                                                                          "h[017-032]\n"            // the other pod
                                                                          "h[001-015]\n"            // too few
                                                                          "h[001-020]\n",           // more than needed
                                                                          "c.txt");
  REQUIRE(cands.ok());
  const Result<CandidateRanking> k = candidates_rank(c, r, job, *cands, {});
  REQUIRE_MESSAGE(k.ok(), (k ? "" : k.error()));
  MESSAGE(candidates_text(job, *cands, *k));
  check_as_planned(c, r, job, *cands, *k);
  // Ranked by step; the ranks follow it.
  for (size_t n = 1; n < k->ranked.size(); ++n) {
    const CandidateResult &a = k->results[k->ranked[n - 1]], &b = k->results[k->ranked[n]];
    if (b.holds) CHECK(a.step_s <= b.step_s);
    CHECK((a.holds || !b.holds));
  }
  CHECK(k->results[k->ranked.front()].rank == 1);
  CHECK(k->results[7].rank == 0);
  CHECK(k->results[7].why.find("the job needs 128 GPUs") != std::string::npos);
  // One pod beats 8:8 across two, which beats 15:1.
  CHECK(k->results[1].step_s < k->results[0].step_s);
  CHECK(k->results[0].step_s < k->results[3].step_s);
  // The same hosts in another order, and other hosts of the same leaf groups, share a plan.
  CHECK(k->results[2].planned_as == 1);
  CHECK(k->results[5].planned_as == 4);
  CHECK(k->results[6].planned_as == -1);  // another pod: pods are not assumed alike
  CHECK(k->planned < static_cast<int>(cands->size()));

  const nlohmann::json j = candidates_json(c, job, *cands, *k);
  REQUIRE(j["candidates"].size() == cands->size());
  CHECK(j["candidates"][0]["id"] == "line 1");
  CHECK(j["candidates"][0]["step_s"] == k->results[0].step_s);
  CHECK(j["candidates"][7]["holds"] == false);
  CHECK(j["candidates"][2]["planned_as"] == "line 2");
  CHECK(j["ranked"].size() == cands->size() - 1);
  CHECK(j["ranked"][0] == (*cands)[k->ranked.front()].id);
}

TEST_CASE("candidates --quick: the planner's construction, before its local search") {
  const Cluster c = pods_cluster("candidates-quick");
  const Router r(c);
  const Job job = exposed_job();
  const Result<std::vector<CandidateAllocation>> cands =
      candidates_parse(c, "h[001-008,010-016,017]\nh[001-004,009-012,017-024]\nh[003-006,011-014,020-027]\n", "c.txt");
  REQUIRE(cands.ok());
  PlanRequest quick;
  quick.search = false;
  const Result<CandidateRanking> k = candidates_rank(c, r, job, *cands, quick);
  REQUIRE_MESSAGE(k.ok(), (k ? "" : k.error()));
  CHECK_FALSE(k->searched);
  for (size_t i = 0; i < cands->size(); ++i) {
    const Result<Plan> p = planned_on(c, r, job, (*cands)[i]);
    REQUIRE(p.ok());
    INFO("candidate " << (*cands)[i].id);
    // The best order string placed in topology order: plan's first candidate, which its search
    // can only improve on.
    CHECK(k->results[i].exposed_s == doctest::Approx(p->candidates.front().exposed_s).epsilon(1e-12));
    CHECK(k->results[i].order == p->candidates.front().order);
    CHECK(k->results[i].step_s >= p->score.step_s);
  }
  CHECK(candidates_text(job, *cands, *k).find("before its local search") != std::string::npos);
}

TEST_CASE("candidates: leaf groups that reach the spines alike stand for each other") {
  // pods-16-h100: leaf groups of 2 hosts, pods of 4, 4:1 above; every leaf one link to each spine.
  const Cluster c = test::load_cluster((test::data_dir() / "clusters" / "pods-16-h100.json").string());
  const Router r(c);
  Job job = exposed_job();
  job.parallel.tp = 8;
  job.parallel.pp = 1;
  job.parallel.dp = 2;  // 2 hosts
  const Result<std::vector<CandidateAllocation>> cands = candidates_parse(c,
                                                                          "h001,h002\n"  // one leaf group
                                                                          "h003,h004\n"  // another of the same pod
                                                                          "h001,h003\n"  // two leaf groups
                                                                          "h002,h004\n"  // other hosts, same groups
                                                                          "h001,h005\n",  // two pods
                                                                          "c.txt");
  REQUIRE(cands.ok());
  const Result<CandidateRanking> k = candidates_rank(c, r, job, *cands, {});
  REQUIRE_MESSAGE(k.ok(), (k ? "" : k.error()));
  MESSAGE(candidates_text(job, *cands, *k));
  CHECK(k->results[1].planned_as == 0);
  CHECK(k->results[3].planned_as == 2);
  CHECK(k->results[4].planned_as == -1);
  CHECK(k->planned == 3);
  CHECK(k->results[4].step_s > k->results[0].step_s);  // across the 4:1 core: the pattern shows
  check_as_planned(c, r, job, *cands, *k);
}

TEST_CASE("candidates: a shared pattern holds where the fabric's symmetry does") {
  const Cluster c = pods_cluster("candidates-patterns");
  const Locality& loc = locality_of(c);
  const AllocationPatterns p(c, loc, {}, {});
  REQUIRE(p.why_not().empty());
  MESSAGE("leaf groups: " << (p.groups_why_not().empty() ? "alike" : p.groups_why_not()));
  // Hosts of one leaf group stand for each other; a pod does not stand for another.
  CHECK(p.key({0, 1, 2, 3}) == p.key({4, 5, 6, 7}));
  CHECK(p.key({0, 1, 2, 3}) != p.key({16, 17, 18, 19}));
  CHECK(p.key({0, 1, 2, 3}) != p.key({0, 1, 2, 8}));
  if (p.groups_why_not().empty()) CHECK(p.key({0, 1, 8, 9}) == p.key({8, 9, 0, 1}));

  // Anything down, a background load or hash routing: every allocation is its own.
  Result<DownSet> down = down_parse(c, {"h001"});
  REQUIRE(down.ok());
  CHECK_FALSE(AllocationPatterns(c, loc, *down, {}).why_not().empty());
  Cluster hashed = pods_cluster("candidates-hash");
  hashed.routing = {Routing::hash, "test"};
  const AllocationPatterns h(hashed, loc, {}, {});
  CHECK(h.why_not().find("hash") != std::string::npos);
  CHECK(h.key({0, 1}).empty());
}

}  // namespace topoplan

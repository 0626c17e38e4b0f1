// Jobs beside each other: the max-min fair parts of a link, and two jobs whose data-parallel rings
// cross the same spine links of a 2:1 pod slowed as the fair-share arithmetic done here by hand.
#include "planner/contention.h"

#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "planner/arrival.h"
#include "planner/contention_text.h"
#include "planner/plan_running.h"
#include "tests/support.h"

namespace topoplan {
namespace {

// Eight DGX H100 nodes, two per leaf, 2:1 under one spine layer.
Cluster pod_2to1() {
  const auto dir = test::temp_dir("contention-pod");
  std::ofstream(dir / "pod.json") << R"({"name": "pod-2to1", "node": "dgx-h100", "nodes": 8,
    "fabric": {"kind": "rail", "nodes_per_su": 2, "leaf_oversubscription": 2}})";
  return test::load_cluster((dir / "pod.json").string());
}

// TP 8 inside each host, DP 4 across four hosts; or TP 4 and PP 2 in each.
Job dp4_job(int tp = 8, int pp = 1) {
  nlohmann::json j = nlohmann::json::parse(R"({"format": "topoplan-job", "name": "dp4",
    "model": {"layers": 8, "hidden": 4096, "ffn_hidden": 14336, "heads": 32, "kv_heads": 8, "vocab": 32000,
              "swiglu": true},
    "training": {"seq_length": 4096, "micro_batch": 1, "global_batch": 32, "dtype": "bf16"},
    "parallel": {"dp": 4, "sequence_parallel": true, "zero_stage": 1}})");
  j["parallel"]["tp"] = tp;
  j["parallel"]["pp"] = pp;
  return *job_from_json(j, "dp4.json");
}

RunningJob running(const Cluster& c, const std::string& name, const std::string& hosts) {
  const Job job = dp4_job();
  Result<Layout> l = layout_parse(hosts + " slots=8\n", name + ".hosts", c, job_ranks(job));
  REQUIRE_MESSAGE(l.ok(), (l ? "" : l.error()));
  return {name, name + ".hosts", job, *l};
}

// Four leaf groups of four DGX H100 nodes, 4:1 under the spines: one uplink per rail leaf.
Cluster pod16_4to1() {
  const auto dir = test::temp_dir("plan-running");
  std::ofstream(dir / "pod.json") << R"({"name": "pod16", "node": "dgx-h100", "nodes": 16,
    "fabric": {"kind": "rail", "nodes_per_su": 4, "leaf_oversubscription": 4}})";
  return test::load_cluster((dir / "pod.json").string());
}

// Job a on two hosts in each of the first two leaf groups of pod16_4to1, across their uplinks.
RunningJobs running_a(const Cluster& c) {
  RunningJobs busy;
  busy.source = "running.json";
  busy.jobs = {running(c, "a", "h[001-002,005-006]")};
  return busy;
}

}  // namespace

TEST_CASE("contention: max-min fair parts of a link, by hand") {
  // 2 flows of our own beside three jobs: 0.1 on 1 flow is under every split and gets it all;
  // then 0.9 is left for 7 flows (0.129 each), under which 0.5 on 4 flows (0.125 each) fits;
  // 0.4 is left for 3 flows: 0.133 each, so the 0.9 asked on 1 flow gets 0.133, and we 0.267.
  const std::vector<double> p = fair_parts(2, {{1, 0.1}, {1, 0.9}, {4, 0.5}});
  REQUIRE(p.size() == 3);
  CHECK(p[0] == doctest::Approx(0.1));
  CHECK(p[1] == doctest::Approx(0.4 / 3));
  CHECK(p[2] == doctest::Approx(0.5));
  // Equal flows that both want it all split it; a job that asks for nothing takes nothing.
  CHECK(fair_parts(3, {{3, 1.0}})[0] == doctest::Approx(0.5));
  CHECK(fair_parts(1, {{1, 0.0}})[0] == 0);
  CHECK(fair_parts(1, {}).empty());
}

TEST_CASE("contention: two jobs' DP rings on the same spine links of a 2:1 pod, by hand") {
  const Cluster c = pod_2to1();
  const Router r(c);
  // One host of each job in every leaf group: every DP ring crosses the spines, the same links.
  const std::vector<RunningJob> jobs = {running(c, "a", "h[001,003,005,007]"), running(c, "b", "h[002,004,006,008]")};
  Result<Contention> k = contention_compute(c, r, jobs, {});
  REQUIRE_MESSAGE(k.ok(), (k ? "" : k.error()));

  ScoreOptions idle;
  idle.fabric = FabricMode::idle;
  const JobScore a = *score_job(c, r, jobs[0].job, jobs[0].layout, idle);
  const JobScore b = *score_job(c, r, jobs[1].job, jobs[1].layout, idle);
  CHECK(k->jobs[0].step_alone_s == doctest::Approx(a.step_s));
  std::map<EdgeId, const LinkUse*> of_b;
  for (const LinkUse& u : b.links) of_b[u.edge] = &u;
  // The links they share are the spine links (a host's own cables and NVLinks are its job's),
  // where their flows are as many: each gets half, or what the other leaves of its demand.
  std::map<EdgeId, const ContendedLink*> shared;
  for (const ContendedLink& l : k->links)
    if (l.jobs.size() == 2) shared[l.edge] = &l;
  CHECK(shared.size() == k->meeting);
  REQUIRE(!shared.empty());
  Background average, worst;
  for (const LinkUse& u : a.links) {
    auto other = of_b.find(u.edge);
    if (other == of_b.end()) continue;
    REQUIRE(shared.count(u.edge) == 1);
    const std::string name = c.edge_name(u.edge);
    CAPTURE(name);
    CHECK((name.find("spine") != std::string::npos));
    CHECK(shared[u.edge]->jobs[0].flows == shared[u.edge]->jobs[1].flows);
    average.utilization.emplace_back(u.edge, std::min(other->second->utilization, 0.5));
    worst.utilization.emplace_back(u.edge, std::min(other->second->peak, 0.5));
    // The optimizer's collectives keep the spines near full in their phase: half each at worst.
    CHECK(other->second->peak > 0.5);
    // Per phase, the link carries both jobs' load in it, as if both were in that phase at once.
    for (size_t p = 0; p < kPhases; ++p)
      CHECK(shared[u.edge]->phase_utilization[p] ==
            doctest::Approx(u.phase_utilization[p] + other->second->phase_utilization[p]));
    CHECK(shared[u.edge]->phase_utilization[static_cast<size_t>(Phase::optimizer)] > 1);
  }
  CHECK(average.utilization.size() == shared.size());
  for (const auto& [background, alignment] :
       {std::pair{&average, Alignment::average}, std::pair{&worst, Alignment::worst}}) {
    const Alignment align = alignment;  // a copy: structured bindings are not captured (CAPTURE)
    ScoreOptions with = idle;
    with.background = background;
    const JobScore by_hand = *score_job(c, r, jobs[0].job, jobs[0].layout, with);
    const JobBeside& got = k->jobs[0].beside[static_cast<size_t>(align)];
    CAPTURE(to_string(align));
    CHECK(got.step_s == doctest::Approx(by_hand.step_s));
    CHECK(got.slowdown == doctest::Approx(by_hand.step_s / a.step_s));
    CHECK(got.step_s > a.step_s);
    // The mirror image is slowed the same, and each is slowed by the other alone.
    CHECK(k->jobs[1].beside[static_cast<size_t>(align)].step_s == doctest::Approx(got.step_s));
    REQUIRE(got.causes.size() == 1);
    CHECK(got.causes[0].job == 1);
    CHECK(got.causes[0].share == doctest::Approx(1));
    CHECK(got.causes[0].added_s == doctest::Approx(got.step_s - a.step_s));
  }
  CHECK(k->jobs[0].beside[1].step_s > k->jobs[0].beside[0].step_s);
  // docs/model.md's figures.
  CHECK(k->jobs[0].beside[0].slowdown == doctest::Approx(1.026).epsilon(0.001));
  CHECK(k->jobs[0].beside[1].slowdown == doctest::Approx(1.148).epsilon(0.001));
}

// Two hosts of DP 2.
RunningJob dp2(const Cluster& c, const std::string& name, const std::string& hosts) {
  Job job = dp4_job();
  job.parallel.dp = 2;
  job.training.global_batch = 16;
  Result<Layout> l = layout_parse(hosts + " slots=8\n", name + ".hosts", c, job_ranks(job));
  REQUIRE_MESSAGE(l.ok(), (l ? "" : l.error()));
  return {name, name + ".hosts", job, *l};
}

TEST_CASE("contention: jobs each inside its own leaf group meet nowhere and keep their step") {
  const Cluster c = pod_2to1();
  const Router r(c);
  Result<Contention> k = contention_compute(c, r, {dp2(c, "a", "h[001-002]"), dp2(c, "b", "h[003-004]")}, {});
  REQUIRE(k.ok());
  CHECK(k->meeting == 0);
  CHECK(!k->links.empty());
  for (const ContentionJob& j : k->jobs)
    for (const JobBeside& b : j.beside) {
      CHECK(b.step_s == j.step_alone_s);
      CHECK(b.slowdown == 1);
      CHECK(b.causes.empty());
    }
}

TEST_CASE("contention: each job's part in a slowdown is its share of the added busy time") {
  const Cluster c = pod_2to1();
  const Router r(c);
  // b and c each cross the spines as a does: every job is slowed by both others.
  const std::vector<RunningJob> jobs = {running(c, "a", "h[001,003,005,007]"), dp2(c, "b", "h[002,004]"),
                                        dp2(c, "c", "h[006,008]")};
  Result<Contention> k = contention_compute(c, r, jobs, {});
  REQUIRE(k.ok());
  const JobBeside& a = k->jobs[0].beside[static_cast<size_t>(Alignment::worst)];
  REQUIRE(a.causes.size() == 2);
  for (const ContentionJob& j : k->jobs)
    for (const JobBeside& b : j.beside) {
      CAPTURE(j.name);
      double share = 0, added = 0;
      for (const ContentionCause& cause : b.causes) share += cause.share, added += cause.added_s;
      REQUIRE(!b.causes.empty());
      CHECK(share == doctest::Approx(1));
      CHECK(added == doctest::Approx(b.step_s - j.step_alone_s));
      CHECK(b.step_s >= j.step_alone_s);
    }
  // The worst alignment is never kinder than the average.
  for (const ContentionJob& j : k->jobs) CHECK(j.beside[1].step_s >= j.beside[0].step_s);
}

TEST_CASE("contention: a new job among running ones, and the GPU time it costs them") {
  const Cluster c = pod_2to1();
  const Router r(c);
  // a and b each keep to their own leaf groups; c crosses the spines with a.
  RunningJobs running;
  running.source = "running.json";
  running.jobs = {dp2(c, "a", "h[001,003]"), dp2(c, "b", "h[006,008]")};
  const RunningJob c_job = dp2(c, "c", "h[002,004]");
  Result<Arrival> k = arrival_compute(c, r, running, c_job, {});
  REQUIRE_MESSAGE(k.ok(), (k ? "" : k.error()));
  // The new job is the last of the contention with it; only a shares a link with it.
  REQUIRE(k->after.jobs.size() == 3);
  CHECK(k->job().name == "c");
  REQUIRE(k->effects.size() == 1);
  const ArrivalEffect& e = k->effects[0];
  CHECK(e.job == 0);
  Result<Contention> before = contention_compute(c, r, running.jobs, {});
  REQUIRE(before.ok());
  for (size_t a = 0; a < kAlignments; ++a) {
    CAPTURE(a);
    CHECK(e.before_s[a] == doctest::Approx(before->jobs[0].beside[a].step_s));
    CHECK(e.after_s[a] == doctest::Approx(k->after.jobs[0].beside[a].step_s));
    // 16 GPUs of a, slowed from before to after.
    CHECK(k->lost_gpus[a] == doctest::Approx(16 * (e.after_s[a] - e.before_s[a]) / e.before_s[a]));
  }
  CHECK(k->lost_gpus[static_cast<size_t>(Alignment::worst)] > 0);
  const std::string text = arrival_text(running, *k);
  CHECK(text.find("beside 2 running jobs (running.json") != std::string::npos);
  CHECK(text.find("it shares links with 1 of them") != std::string::npos);

  // A new job on a running job's GPU is refused, naming both.
  Result<Arrival> clash = arrival_compute(c, r, running, dp2(c, "d", "h[003,005]"), {});
  REQUIRE_FALSE(clash.ok());
  CHECK(clash.error() == "d.hosts: rank 0 runs on h003/gpu0, which running job 'a' (running.json) has");
}

TEST_CASE("contention: the background a job is planned on beside one running job is its fair part") {
  const Cluster c = pod16_4to1();
  const Router r(c);
  const RunningJobs busy = running_a(c);
  Result<std::vector<JobDemand>> demands = job_demands(c, r, busy.jobs, {});
  REQUIRE(demands.ok());
  Result<Contention> k = contention_compute(c, r, busy.jobs, {});
  REQUIRE(k.ok());
  // One job with F flows beside a newcomer given F flows too: it keeps what it asks up to half.
  for (Alignment a : {Alignment::average, Alignment::worst}) {
    Result<Background> bg = running_background(c, r, busy, *demands, {}, a);
    REQUIRE(bg.ok());
    CHECK(bg->source == "the running jobs (" + std::string(to_string(a)) + " alignment)");
    std::map<EdgeId, double> want;
    for (const ContendedLink& l : k->links) {
      REQUIRE(l.jobs.size() == 1);
      const double part = std::min(demand_of(l.jobs[0].utilization, l.jobs[0].peak, a), 0.5);
      if (part > 0) want[l.edge] = part;
    }
    REQUIRE(!want.empty());
    CHECK(bg->utilization.size() == want.size());
    bool some_capped = false;
    for (const auto& [edge, u] : bg->utilization) {
      REQUIRE(want.count(edge) == 1);
      CHECK(u == doctest::Approx(want[edge]));
      some_capped = some_capped || u == 0.5;
    }
    if (a == Alignment::worst) CHECK(some_capped);  // its busiest phase fills a link
  }
}

TEST_CASE("contention: plan --running keeps off the running job's uplinks where other hosts allow it") {
  const Cluster c = pod16_4to1();
  const Router r(c);
  // a runs in leaf groups 0 and 1, across their uplinks; two hosts of every group are offered, so
  // the fabric tree alone picks groups 0 and 1 (first in topology order) for a four-host job.
  const RunningJobs busy = running_a(c);
  PlanRequest req;
  req.free = *hosts_by_name(c, {"h003", "h004", "h007", "h008", "h011", "h012", "h015", "h016"});
  Result<RunningPlan> p = plan_beside_running(c, r, dp4_job(), req, {&busy, 1, Alignment::average});
  REQUIRE_MESSAGE(p.ok(), (p ? "" : p.error()));
  // The plan made without them, on the same hosts, takes the first two groups.
  PlanRequest alone = req;
  alone.free = *hosts_by_name(c, {"h003", "h004", "h007", "h008", "h011", "h012", "h015", "h016"});
  Result<Plan> without = plan_job(c, r, dp4_job(), alone);
  REQUIRE(without.ok());
  std::vector<std::string> names;
  for (int h : without->host_order) names.push_back(c.hosts()[static_cast<size_t>(h)].name);
  CHECK(names == std::vector<std::string>{"h003", "h004", "h007", "h008"});
  Result<Arrival> beside_without = arrival_compute(c, r, busy, {"b", "b", without->job, without->layout}, {});
  REQUIRE(beside_without.ok());
  CHECK(beside_without->effects.size() == 1);
  CHECK(beside_without->lost_gpus[0] == doctest::Approx(0.8).epsilon(0.07));  // docs/planner.md's figure
  // Beside them on the free hosts, the same first two groups (32 link directions shared), then away.
  REQUIRE(p->options.size() == 2);
  CHECK(p->options[0].shared_links == 32);
  CHECK(p->options[1].what == "beside them, away from the leaf groups whose uplinks they cross");
  // The plan: groups 2 and 3, sharing no link with a; faster beside it than the plan made without it.
  const RunningOption& chosen = p->options[p->chosen];
  names.clear();
  for (int h : chosen.hosts) names.push_back(c.hosts()[static_cast<size_t>(h)].name);
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"h011", "h012", "h015", "h016"});
  CHECK(chosen.shared_links == 0);
  CHECK(chosen.step_s < beside_without->job().beside[0].step_s);
  CHECK(p->gave_up_s == 0);
  // Its score is the one beside them, and nothing of a's changes.
  CHECK(p->plan.score.step_s == doctest::Approx(chosen.step_s));
  CHECK(p->arrival.effects.empty());
}

TEST_CASE("contention: plan --running weighs the next order strings too, and emits the one it chose") {
  const Cluster c = pod16_4to1();
  const Router r(c);
  const RunningJobs busy = running_a(c);
  // TP 4, PP 2, DP 4: several order strings, on the only hosts offered, in a's leaf groups.
  const Job job = dp4_job(4, 2);
  PlanRequest req;
  req.free = *hosts_by_name(c, {"h003", "h004", "h007", "h008"});
  Result<RunningPlan> p = plan_beside_running(c, r, job, req, {&busy, 1, Alignment::average});
  REQUIRE_MESSAGE(p.ok(), (p ? "" : p.error()));
  REQUIRE(p->options.size() >= 2);
  CHECK(p->options.size() <= kOrdersWeighed);
  CHECK(p->options[0].searched);
  std::vector<std::string> orders;
  for (const RunningOption& o : p->options) {
    CAPTURE(o.order);
    orders.push_back(o.order);
    CHECK(o.shared_links > 0);
    CHECK(o.cost == doctest::Approx(o.step_s * (job_ranks(job) + o.lost_gpus)));
    CHECK(p->options[p->chosen].cost <= o.cost * (1 + 1e-9));
  }
  std::sort(orders.begin(), orders.end());
  CHECK(std::unique(orders.begin(), orders.end()) == orders.end());
  // The plan handed over is the option chosen: its order, its hosts, its step beside them.
  const RunningOption& chosen = p->options[p->chosen];
  CHECK(p->plan.job.parallel.order == chosen.order);
  CHECK(p->plan.host_order == chosen.hosts);
  CHECK(p->plan.score.step_s == doctest::Approx(chosen.step_s));
  Result<Arrival> again = arrival_compute(c, r, busy, {"b", "b", p->plan.job, p->plan.layout}, {});
  REQUIRE(again.ok());
  CHECK(again->lost_gpus[0] == doctest::Approx(chosen.lost_gpus));
}

TEST_CASE("contention: the HTML page's data has each job as a named set with the links it loads") {
  const Cluster c = pod_2to1();
  const Router r(c);
  RunningJobs jobs;
  jobs.source = "running.json";
  jobs.jobs = {running(c, "a", "h[001,003,005,007]"), running(c, "b", "h[002,004,006,008]")};
  Result<Contention> k = contention_compute(c, r, jobs.jobs, {});
  REQUIRE(k.ok());
  const auto path = test::temp_dir("contention-html") / "c.html";
  REQUIRE(contention_html_write(path.string(), c, jobs, *k, "text").ok());
  const std::string page = test::read_file(path);
  CHECK(page.find("\"group_names\":{\"job\":[\"a\",\"b\"]}") != std::string::npos);
  CHECK(page.find("\"heading\":\"2 running jobs together: " + std::to_string(k->meeting) +
                  " link directions where jobs meet\"") != std::string::npos);
}

}  // namespace topoplan

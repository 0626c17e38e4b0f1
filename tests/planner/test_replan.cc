// A 16-host plan of llama3-70b on three pods of two leaf groups each (pods of 8 hosts, leaf groups
// of 4), one host failing, two spares: one beside it under its leaf, one in another pod.
#include "planner/replan.h"

#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support.h"
#include "topology/degraded.h"

namespace topoplan {
namespace {

const char* kPods = R"({"name": "pods-24", "node": "dgx-h100", "nodes": 24,
  "fabric": {"kind": "rail", "nodes_per_su": 4, "nodes_per_pod": 8, "pod_oversubscription": 4}})";

struct Fixture {
  std::filesystem::path dir = test::temp_dir("replan");
  Cluster c;
  Job job;
  Plan plan;
  Fixture() {
    std::ofstream(dir / "pods.json") << kPods;
    c = test::load_cluster((dir / "pods.json").string());
    job = *job_load((test::data_dir() / "jobs" / "llama3-70b.json").string());
    PlanRequest req;
    // Leaf group 0 without h004, leaf groups 1-3 whole, one host of pod 2: 16 hosts.
    for (int h : {0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}) req.free.push_back(h);
    Router r(c);
    plan = *plan_job(c, r, job, req);
  }
  int host(const std::string& name) const { return *hosts_by_name(c, {name}).value().begin(); }
};

}  // namespace

TEST_CASE("replan: a failed host's ranks go to the spare under its leaf; the rest stay") {
  Fixture f;
  ReplanRequest req;
  req.failed = {f.host("h002")};
  req.spares = {f.host("h021"), f.host("h004")};  // the other pod's first
  req.down = *down_parse(f.c, {"h002"});
  const Router r(f.c, req.down);
  const Result<Replan> rp = replan_job(f.c, r, f.plan.job, f.plan.layout, req);
  REQUIRE_MESSAGE(rp.ok(), (rp ? "" : rp.error()));
  REQUIRE(rp->replacements.size() == 1);
  CHECK(rp->replacements[0].spare == f.host("h004"));
  CHECK(rp->replacements[0].scored.size() == 2);
  // Every spare scored, the chosen one no worse by the planner's objective.
  const SpareScore& chosen = rp->replacements[0].scored[0];
  const SpareScore& other = rp->replacements[0].scored[1];
  CHECK(chosen.host == f.host("h004"));
  CHECK(chosen.step_s <= other.step_s + 1e-9);
  CHECK(chosen.core_bytes < other.core_bytes);
  // At least 90% of the ranks keep their GPU: all but the failed host's 8.
  CHECK(rp->moved_ranks.size() == 8);
  for (int rank = 0; rank < f.plan.layout.world_size(); ++rank) {
    const bool was_failed = f.c.device(f.plan.layout.gpu_of_rank[static_cast<size_t>(rank)]).host == f.host("h002");
    const bool moved = std::find(rp->moved_ranks.begin(), rp->moved_ranks.end(), rank) != rp->moved_ranks.end();
    CHECK(was_failed == moved);
    if (moved) CHECK(f.c.device(rp->plan.layout.gpu_of_rank[static_cast<size_t>(rank)]).host == f.host("h004"));
  }
  // The mended plan's score is its layout's; the full re-plan runs on the same hosts.
  const Result<JobScore> again = score_job(f.c, r, f.plan.job, rp->plan.layout, req.score);
  REQUIRE(again.ok());
  CHECK(again->step_s == doctest::Approx(rp->plan.score.step_s));
  std::vector<int> a = rp->plan.host_order, b = rp->full.host_order;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  CHECK(a == b);
  CHECK(rp->full.score.exposed_comm_s <= rp->plan.score.exposed_comm_s + 1e-9);
  // A swap, when offered, was scored and is shorter.
  if (rp->swap) CHECK(rp->swap->step_s < rp->plan.score.step_s);
}

TEST_CASE("replan: two failed hosts take two spares, each scored with the other placed") {
  Fixture f;
  ReplanRequest req;
  req.failed = {f.host("h002"), f.host("h003")};
  req.spares = {f.host("h021"), f.host("h004"), f.host("h022")};
  req.down = *down_parse(f.c, {"h002", "h003"});
  const Router r(f.c, req.down);
  const Result<Replan> rp = replan_job(f.c, r, f.plan.job, f.plan.layout, req);
  REQUIRE_MESSAGE(rp.ok(), (rp ? "" : rp.error()));
  REQUIRE(rp->replacements.size() == 2);
  CHECK(rp->replacements[0].spare != rp->replacements[1].spare);
  CHECK(rp->moved_ranks.size() == 16);
  // The second was scored with the first already in place: its own spare and the one still free.
  CHECK(rp->replacements[1].scored.size() == 2);
}

TEST_CASE("replan: a degraded NIC's ranks stay unless a spare shortens the step") {
  Fixture f;
  for (const char* rate : {"5Gbps", "399Gbps"}) {
    CAPTURE(rate);
    const Result<Degraded> slower = cluster_degraded(f.c, {std::string("h002/nic0=") + rate});
    REQUIRE(slower.ok());
    ReplanRequest req;
    req.degraded = slower->hosts;
    req.spares = {f.host("h004"), f.host("h021")};
    const Router r(slower->cluster);
    const Result<Replan> rp = replan_job(slower->cluster, r, f.plan.job, f.plan.layout, req);
    REQUIRE_MESSAGE(rp.ok(), (rp ? "" : rp.error()));
    REQUIRE(rp->replacements.size() == 1);
    const HostReplacement& rep = rp->replacements[0];
    CHECK_FALSE(rep.failed);
    CHECK(rep.scored.size() == 3);  // staying, and each spare
    const auto stay = std::find_if(rep.scored.begin(), rep.scored.end(), [&](const SpareScore& x) { return x.host == rep.host; });
    REQUIRE(stay != rep.scored.end());
    if (std::string(rate) == "5Gbps") {
      // A NIC at a eightieth of its rate: moving off it shortens the step, to the spare under its leaf.
      CHECK(rep.spare == f.host("h004"));
      CHECK(rp->plan.score.step_s < stay->step_s);
      CHECK(rp->moved_ranks.size() == 8);
    } else {
      // Nearly its rate: the ranks stay, nothing moves.
      CHECK(rep.spare == f.host("h002"));
      CHECK(rp->moved_ranks.empty());
    }
  }
}

TEST_CASE("replan: bad requests are errors") {
  Fixture f;
  ReplanRequest req;
  req.down = *down_parse(f.c, {"h002"});
  const Router r(f.c, req.down);
  req.failed = {f.host("h024")};
  CHECK(replan_job(f.c, r, f.plan.job, f.plan.layout, req).error() == "failed host h024 runs no rank of the plan");
  req.failed = {f.host("h002")};
  req.spares = {f.host("h001")};
  CHECK(replan_job(f.c, r, f.plan.job, f.plan.layout, req).error() ==
        "spare h001 is busy: it runs ranks of the plan");
  // Two failed hosts, one spare.
  req.failed = {f.host("h002"), f.host("h003")};
  req.spares = {f.host("h004")};
  req.down = *down_parse(f.c, {"h002", "h003"});
  const Router r2(f.c, req.down);
  const Result<Replan> short_of = replan_job(f.c, r2, f.plan.job, f.plan.layout, req);
  REQUIRE_FALSE(short_of.ok());
  CHECK(short_of.error() == "no spare can take the 8 ranks of h003: each needs the same GPUs up (1 spare, 1 taken by other failed hosts)");
}

TEST_CASE("replan: the command writes plan's files and moved.txt, each read back") {
  Fixture f;
  const std::string cluster = (f.dir / "pods.json").string();
  const std::string job = (test::data_dir() / "jobs" / "llama3-70b.json").string();
  auto planned = test::run_topoplan("plan --cluster " + cluster + " --job " + job +
                                    " --nodes h[001-003,005-017] -o " + (f.dir / "a").string());
  REQUIRE_MESSAGE(planned.exit_code == 0, planned.err);
  const std::string plan = (f.dir / "a" / "plan.json").string();
  auto rp = test::run_topoplan("replan --plan " + plan + " --failed h002 --spares h004,h021 -o " +
                               (f.dir / "b").string() + " --emit json,slurm-hostfile");
  REQUIRE_MESSAGE(rp.exit_code == 0, rp.err);
  CHECK(rp.out.find("h002 failed, its ranks go to h004 (best of 2 places scored); 120 of 128 ranks keep their GPU") !=
        std::string::npos);
  // moved.txt: the 8 ranks, from h002 to h004, each on the same local GPU.
  std::ifstream moved(f.dir / "b" / "moved.txt");
  std::string line;
  int lines = 0;
  while (std::getline(moved, line)) {
    if (line.starts_with("#")) continue;
    ++lines;
    CHECK(line.find(" h002/gpu") != std::string::npos);
    CHECK(line.substr(line.find(" h002/gpu") + 9, 1) == line.substr(line.find(" h004/gpu") + 9, 1));
  }
  CHECK(lines == 8);
  // The mended plan scores back to what replan said, with h002 down, and review reads it.
  auto score = test::run_topoplan("score --cluster " + cluster + " --job " + job + " --layout " +
                                  (f.dir / "b" / "plan.json").string() + " --json");
  REQUIRE_MESSAGE(score.exit_code == 0, score.err);
  auto json = test::run_topoplan("replan --plan " + plan + " --failed h002 --spares h004,h021 --json");
  REQUIRE(json.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  CHECK(nlohmann::json::parse(score.out)["step_s"].get<double>() == doctest::Approx(j["step_s"].get<double>()));
  CHECK(j["plan"]["exclude"] == nlohmann::json::array({"h002"}));
  CHECK(j["replacements"][0]["spare"] == "h004");
  // The hostfile names h004 and never h002.
  const std::string hostfile = test::read_file(f.dir / "b" / "slurm.hostfile");
  CHECK(hostfile.find("h004") != std::string::npos);
  CHECK(hostfile.find("h002") == std::string::npos);

  // A NIC at 5 Gbit/s: its ranks move to the spare under its leaf.
  auto slow = test::run_topoplan("replan --plan " + plan + " --degraded h002/nic0=5Gbps --spares h004,h021 --json");
  REQUIRE_MESSAGE(slow.exit_code == 0, slow.err);
  const nlohmann::json s = nlohmann::json::parse(slow.out);
  CHECK(s["replacements"][0]["failed"] == false);
  CHECK(s["replacements"][0]["spare"] == "h004");
  CHECK(s["moved_ranks"].size() == 8);
  // Bad input: exit 2, naming what is wrong.
  auto neither = test::run_topoplan("replan --plan " + plan);
  CHECK(neither.exit_code == 2);
  CHECK(neither.err.find("give --failed, --degraded or both") != std::string::npos);
  auto bad_rate = test::run_topoplan("replan --plan " + plan + " --degraded h002/nic0=fast");
  CHECK(bad_rate.exit_code == 2);
  CHECK(bad_rate.err.find("--degraded: h002/nic0: ") != std::string::npos);
  auto busy = test::run_topoplan("replan --plan " + plan + " --failed h002 --spares h001");
  CHECK(busy.exit_code == 2);
  CHECK(busy.err.find("spare h001 is busy") != std::string::npos);
  auto absent = test::run_topoplan("replan --plan " + plan + " --failed h024");
  CHECK(absent.exit_code == 2);
  CHECK(absent.err.find("failed host h024 runs no rank of the plan") != std::string::npos);
  auto unknown = test::run_topoplan("replan --plan " + plan + " --failed h999");
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("--failed: ") != std::string::npos);
  CHECK(test::run_topoplan("replan --plan /nonexistent/plan.json --failed h002").exit_code == 2);
}

}  // namespace topoplan

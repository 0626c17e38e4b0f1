#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support.h"

using topoplan::test::run_topoplan;

namespace {

// Two jobs of tiny-8's shape at DP 4 on a 2:1 pod of 8 DGX H100 nodes, one host of each in every
// leaf group, listed in `dir`/running.json.
std::filesystem::path two_jobs(const std::string& name) {
  const auto dir = topoplan::test::temp_dir(name);
  std::ofstream(dir / "pod.json") << R"({"name": "pod-2to1", "node": "dgx-h100", "nodes": 8,
    "fabric": {"kind": "rail", "nodes_per_su": 2, "leaf_oversubscription": 2}})";
  std::ofstream(dir / "job.json") << R"({"format": "topoplan-job", "name": "dp4",
    "model": {"layers": 8, "hidden": 4096, "ffn_hidden": 14336, "heads": 32, "kv_heads": 8, "vocab": 32000},
    "training": {"seq_length": 4096, "micro_batch": 1, "global_batch": 32, "dtype": "bf16"},
    "parallel": {"tp": 8, "pp": 1, "dp": 4, "sequence_parallel": true}})";
  std::ofstream(dir / "a.hosts") << "h[001,003,005,007] slots=8\n";
  std::ofstream(dir / "b.hosts") << "h[002,004,006,008] slots=8\n";
  std::ofstream(dir / "running.json") << R"({"format": "topoplan-running", "jobs": [
    {"name": "a", "job": "job.json", "layout": "a.hosts"}, {"name": "b", "job": "job.json", "layout": "b.hosts"}]})";
  return dir;
}

}  // namespace

TEST_CASE("contention: the text and the JSON say the same, both alignments") {
  const auto dir = two_jobs("contention-cli");
  const std::string args = "contention --cluster pod.json --running running.json";
  auto text = run_topoplan(args, dir);
  REQUIRE_MESSAGE(text.exit_code == 0, text.err);
  CHECK(text.out.find("contention: 2 running jobs (running.json)") == 0);
  CHECK(text.out.find("where jobs meet (the busiest 10 of") != std::string::npos);
  CHECK(text.out.find("leaf0 -> spine0") != std::string::npos);
  auto json = run_topoplan(args + " --json", dir);
  REQUIRE_MESSAGE(json.exit_code == 0, json.err);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  CHECK(j["format"] == "topoplan-contention");
  CHECK(j["alignment"] == "average");
  REQUIRE(j["jobs"].size() == 2);
  const nlohmann::json& a = j["jobs"][0];
  CHECK(a["name"] == "a");
  CHECK(a["gpus"] == 32);
  CHECK(a["step_s"] == a["average"]["step_s"]);
  CHECK(a["slowdown"].get<double>() > 1);
  CHECK(a["worst"]["slowdown"].get<double>() > a["average"]["slowdown"].get<double>());
  REQUIRE(a["slowed_by"].size() == 1);
  CHECK(a["slowed_by"][0]["job"] == "b");
  CHECK(a["slowed_by"][0]["share"].get<double>() == doctest::Approx(1));
  // Every loaded link, those where the jobs meet first.
  CHECK(j["links"].size() == j["links_loaded"].get<size_t>());
  CHECK(j["links"][0]["jobs"].size() == 2);
  CHECK(j["links"][j["links_meeting"].get<size_t>()]["jobs"].size() == 1);
  // Per phase, the link's load is its jobs' summed; the text has a column per phase loaded.
  const nlohmann::json& top = j["links"][0];
  for (const auto& item : top["phases"].items()) {
    const std::string phase = item.key();  // clang does not capture a structured binding
    CAPTURE(phase);
    double sum = 0;
    for (const nlohmann::json& x : top["jobs"]) sum += x["phases"][phase].get<double>();
    CHECK(item.value().get<double>() == doctest::Approx(sum));
  }
  // DP's gradient reduction overlaps the backward pass: that phase, and only it, loads the spines.
  CHECK(top["phases"]["backward"].get<double>() == doctest::Approx(top["peak"].get<double>()));
  CHECK(text.out.find("worst  backward  by job") != std::string::npos);
  // The text's figures are the JSON's.
  char alone[64];
  std::snprintf(alone, sizeof alone, "%.1f ms", 1000 * a["step_alone_s"].get<double>());
  CHECK_MESSAGE(text.out.find(alone) != std::string::npos, alone);
  auto worst = run_topoplan(args + " --json --alignment worst", dir);
  REQUIRE(worst.exit_code == 0);
  const nlohmann::json w = nlohmann::json::parse(worst.out);
  CHECK(w["jobs"][0]["step_s"] == a["worst"]["step_s"]);
}

TEST_CASE("contention: bad input is exit 2 naming the file and what is wrong") {
  const auto dir = two_jobs("contention-cli-bad");
  std::ofstream(dir / "c.hosts") << "h[001,010,011,012] slots=8\n";
  std::ofstream(dir / "unknown.json") << R"({"format": "topoplan-running", "jobs": [
    {"name": "a", "job": "job.json", "layout": "c.hosts"}]})";
  auto r = run_topoplan("contention --cluster pod.json --running unknown.json", dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("unknown.json: jobs[0]: ") != std::string::npos);
  CHECK(r.err.find("h010") != std::string::npos);
  std::ofstream(dir / "overlap.json") << R"({"format": "topoplan-running", "jobs": [
    {"name": "a", "job": "job.json", "layout": "a.hosts"}, {"name": "c", "job": "job.json", "layout": "a.hosts"}]})";
  r = run_topoplan("contention --cluster pod.json --running overlap.json", dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("running jobs 'a' (rank 0) and 'c' (rank 0) both run on h001/gpu0") != std::string::npos);
  r = run_topoplan("contention --cluster pod.json --running nowhere.json", dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("nowhere.json") != std::string::npos);
  r = run_topoplan("contention --cluster pod.json --running running.json --alignment best", dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--alignment") != std::string::npos);
  r = run_topoplan("contention --cluster pod.json", dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--running") != std::string::npos);
}

TEST_CASE("score --running: the job beside the running ones, and what it costs them") {
  const auto dir = two_jobs("score-running");
  // One host of the new job in the first two leaf groups, beside a's and b's.
  std::ofstream(dir / "one.json") << R"({"format": "topoplan-running", "jobs": [
    {"name": "a", "job": "job.json", "layout": "a.hosts"}]})";
  std::ofstream(dir / "new.hosts") << "h[002,004,006,008] slots=8\n";
  const std::string args = "score --cluster pod.json --job job.json --layout new.hosts --running one.json";
  auto text = run_topoplan(args, dir);
  REQUIRE_MESSAGE(text.exit_code == 0, text.err);
  CHECK(text.out.find("idle fabric with background the other running jobs (average alignment)") != std::string::npos);
  CHECK(text.out.find("beside 1 running job (one.json") != std::string::npos);
  CHECK(text.out.find("it shares links with 1 of them") != std::string::npos);
  auto json = run_topoplan(args + " --json", dir);
  REQUIRE_MESSAGE(json.exit_code == 0, json.err);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  const nlohmann::json& running = j["running"];
  CHECK(running["jobs"] == 1);
  // The score is the job's beside them (average alignment), and its step is the one listed.
  CHECK(j["step_s"].get<double>() == doctest::Approx(running["this_job"]["average"]["step_s"].get<double>()));
  CHECK(running["this_job"]["worst"]["step_s"].get<double>() > running["this_job"]["step_alone_s"].get<double>());
  REQUIRE(running["slowed"].size() == 1);
  CHECK(running["slowed"][0]["job"] == "a");
  auto worst = run_topoplan(args + " --json --alignment worst", dir);
  REQUIRE(worst.exit_code == 0);
  CHECK(nlohmann::json::parse(worst.out)["step_s"].get<double>() ==
        doctest::Approx(running["this_job"]["worst"]["step_s"].get<double>()));

  // The job on a running job's GPUs, --alignment alone, --running with --fabric or --background.
  auto r = run_topoplan("score --cluster pod.json --job job.json --layout a.hosts --running one.json", dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("rank 0 runs on h001/gpu0, which running job 'a' (one.json) has") != std::string::npos);
  r = run_topoplan("score --cluster pod.json --job job.json --layout new.hosts --alignment worst", dir);
  CHECK(r.exit_code == 2);
  r = run_topoplan(args + " --fabric idle", dir);
  CHECK(r.exit_code == 2);
  r = run_topoplan(args + " --background bg.json", dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--running") != std::string::npos);
}

TEST_CASE("plan --running: the plan beside them, its file read back by score --running") {
  const auto dir = two_jobs("plan-running");
  std::ofstream(dir / "one.json") << R"({"format": "topoplan-running", "jobs": [
    {"name": "a", "job": "job.json", "layout": "a.hosts"}]})";
  const std::string args = "plan --cluster pod.json --job job.json --running one.json";
  auto text = run_topoplan(args + " -o out --emit json,slurm-hostfile", dir);
  REQUIRE_MESSAGE(text.exit_code == 0, text.err);
  CHECK(text.out.find("placed beside 1 running job (one.json, average alignment)") != std::string::npos);
  auto json = run_topoplan(args + " --json", dir);
  REQUIRE_MESSAGE(json.exit_code == 0, json.err);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  CHECK(j["fabric"] == "idle");
  CHECK(j["background"] == "the other running jobs (average alignment)");
  const nlohmann::json& running = j["running"];
  CHECK(running["weight"] == 1);
  REQUIRE(!running["options"].empty());
  // Only free hosts: none of a's.
  for (const auto& rank : j["ranks"]) {
    const std::string host = rank["host"];
    CHECK((host == "h002" || host == "h004" || host == "h006" || host == "h008"));
  }
  // The file read back beside the same jobs gives the plan's step.
  auto back =
      run_topoplan("score --cluster pod.json --job job.json --layout out/plan.json --running one.json --json", dir);
  REQUIRE_MESSAGE(back.exit_code == 0, back.err);
  CHECK(nlohmann::json::parse(back.out)["step_s"].get<double>() ==
        doctest::Approx(running["this_job"]["average"]["step_s"].get<double>()));
  // The hostfile lists free hosts only.
  const std::string hostfile = topoplan::test::read_file(dir / "out" / "slurm.hostfile");
  CHECK(hostfile.find("h002") != std::string::npos);
  CHECK(hostfile.find("h001") == std::string::npos);

  auto r = run_topoplan("plan --cluster pod.json --job job.json --weight 2", dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--weight") != std::string::npos);
  r = run_topoplan(args + " --weight -1", dir);
  CHECK(r.exit_code == 2);
  std::ofstream(dir / "all.json") << R"({"format": "topoplan-running", "jobs": [
    {"name": "a", "job": "job.json", "layout": "a.hosts"}, {"name": "b", "job": "job.json", "layout": "b.hosts"}]})";
  r = run_topoplan("plan --cluster pod.json --job job.json --running all.json", dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("every host offered runs a rank of a running job (all.json)") != std::string::npos);
}

TEST_CASE("advise --candidates --running: ranked by cost beside them, each as plan --nodes --running plans it") {
  const auto dir = topoplan::test::temp_dir("advise-running");
  // Four leaf groups of four nodes, 4:1 above the leaves; a runs across the first two.
  std::ofstream(dir / "pod.json") << R"({"name": "pod16", "node": "dgx-h100", "nodes": 16,
    "fabric": {"kind": "rail", "nodes_per_su": 4, "leaf_oversubscription": 4}})";
  std::ofstream(dir / "job.json") << R"({"format": "topoplan-job", "name": "dp4",
    "model": {"layers": 8, "hidden": 4096, "ffn_hidden": 14336, "heads": 32, "kv_heads": 8, "vocab": 32000},
    "training": {"seq_length": 4096, "micro_batch": 1, "global_batch": 32, "dtype": "bf16"},
    "parallel": {"tp": 8, "pp": 1, "dp": 4, "sequence_parallel": true}})";
  std::ofstream(dir / "a.hosts") << "h[001-002,005-006] slots=8\n";
  std::ofstream(dir / "running.json") << R"({"format": "topoplan-running", "jobs": [
    {"name": "a", "job": "job.json", "layout": "a.hosts"}]})";
  std::ofstream(dir / "cands.txt") << "h[003-004,007-008]\nh[011-012,015-016]\nh[001,003,009,011]\n";
  const std::string args = "advise --cluster pod.json --job job.json --candidates cands.txt --running running.json";
  auto r = run_topoplan(args + " --json", dir);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["running"]["jobs"] == 1);
  // Away from a first; the candidate beside its leaf groups costs it time; one on a's host does not hold.
  CHECK(j["ranked"] == nlohmann::json::array({"line 2", "line 1"}));
  const nlohmann::json& near = j["candidates"][0];
  CHECK(near["lost_gpus"].get<double>() > 0.5);
  CHECK(j["candidates"][1]["lost_gpus"] == 0);
  CHECK(j["candidates"][2]["holds"] == false);
  CHECK(j["candidates"][2]["why"] ==
        "the job needs 32 GPUs; the 3 free hosts offered have 24 up, and running jobs (running.json) hold h001 (a)");
  // Each candidate's figures are plan --nodes --running's on its hosts.
  auto p = run_topoplan("plan --cluster pod.json --job job.json --nodes h[003-004,007-008] --running running.json --json",
                        dir);
  REQUIRE_MESSAGE(p.exit_code == 0, p.err);
  const nlohmann::json plan = nlohmann::json::parse(p.out);
  double cost = 0;
  for (const auto& o : plan["running"]["options"])
    if (o["chosen"] == true) cost = o["cost_gpu_s"].get<double>();
  CHECK(near["cost_gpu_s"].get<double>() == doctest::Approx(cost));
  auto text = run_topoplan(args, dir);
  CHECK(text.out.find("beside 1 running job (running.json, average alignment), ranked by step x (GPUs + 1 x") !=
        std::string::npos);
  CHECK(text.out.find("costs them") != std::string::npos);
  r = run_topoplan("advise --cluster pod.json --job job.json --running running.json", dir);
  CHECK(r.exit_code == 2);
  r = run_topoplan(args + " --quick", dir);
  CHECK(r.exit_code == 2);
}

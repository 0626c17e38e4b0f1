// topoplan-validate run for real with the MPI backend: 8 ranks on this machine, on the plans
// topoplan plan writes for the two 8-GPU jobs of data/jobs (tiny-8: TP2 PP2 DP2; tiny-moe-8: DP8
// with EP4), one host of data/clusters/lab-h100.json.
#include <doctest/doctest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "tests/support.h"

#ifdef TOPOPLAN_VALIDATE_BINARY

namespace {

using topoplan::test::run_topoplan;

std::string mpirun(int ranks, const std::string& args) {
  // As root Open MPI wants --allow-run-as-root; sanitizer builds would report MPI's own leaks, and
  // CUDA's runtime needs the memory ASan keeps as a shadow gap.
  return std::string("ASAN_OPTIONS=detect_leaks=0:protect_shadow_gap=0 '") + TOPOPLAN_MPIEXEC + "' --allow-run-as-root --oversubscribe -np " +
         std::to_string(ranks) + " '" + TOPOPLAN_VALIDATE_BINARY + "' " + args;
}

struct Shell {
  int exit_code;
  std::string out, err;
};

Shell shell(const std::string& cmd, const std::filesystem::path& dir) {
  const std::string out = (dir / "sh.out").string(), err = (dir / "sh.err").string();
  const int status = std::system((cmd + " >'" + out + "' 2>'" + err + "' </dev/null").c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, topoplan::test::read_file(out), topoplan::test::read_file(err)};
}

std::string plan_for(const std::filesystem::path& dir, const std::string& job) {
  const std::string out = (dir / job).string();
  auto r = run_topoplan("plan --cluster " + (topoplan::test::data_dir() / "clusters" / "lab-h100.json").string() + " --job " +
                        (topoplan::test::data_dir() / "jobs" / (job + ".json")).string() + " --nodes h001 --emit json -o " + out);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return out + "/plan.json";
}

}  // namespace

TEST_CASE("validate: MPI backend runs every group of a plan, checks the values, writes JSON and a table") {
  auto dir = topoplan::test::temp_dir("validate-mpi");
  for (const std::string job : {"tiny-8", "tiny-moe-8"}) {
    CAPTURE(job);
    const std::string plan = plan_for(dir, job);
    const nlohmann::json p = nlohmann::json::parse(topoplan::test::read_file(plan));
    const std::string json = (dir / (job + "-results.json")).string();
    Shell r = shell(mpirun(8, "--plan " + plan + " --iters 3 --warmup 1 --timeout-s 120 --json " + json), dir);
    REQUIRE_MESSAGE(r.exit_code == 0, (r.err + r.out));
    CHECK(r.out.starts_with("# topoplan-validate: mpi backend, 8 ranks, plan "));
    CHECK(r.out.find("# Out of bounds values : 0 OK") != std::string::npos);
    const nlohmann::json res = nlohmann::json::parse(topoplan::test::read_file(json));
    CHECK(res["backend"] == "mpi");
    CHECK(res["world"] == 8);
    CHECK(res["wrong"] == 0);
    // One entry per group of every kind the plan has with two or more ranks, its ranks the plan's.
    size_t expected_groups = 0;
    std::map<std::string, std::string> token = {{"tp", "tp"}, {"cp", "cp"}, {"dp", "dp-cp"}, {"pp", "pp"},
                                                {"ep", "expert.ep"}, {"etp", "expert.tp"}, {"edp", "expert.dp"}};
    std::set<std::string> issued;  // the group lists the job issues collectives on
    for (const auto& item : p["score"]["items"]) issued.insert(item["group"].get<std::string>());
    for (const auto& [kind, t] : token)
      if (p["groups"].contains(t) && p["groups"][t][0].size() >= 2 && issued.count(t)) expected_groups += p["groups"][t].size();
    CHECK(res["groups"].size() == expected_groups);
    for (const auto& g : res["groups"]) {
      CHECK(g["ranks"] == p["groups"][token.at(g["kind"].get<std::string>())][g["index"].get<size_t>()]);
      REQUIRE_FALSE(g["results"].empty());
      for (const auto& x : g["results"]) {
        CHECK(x["wrong"] == 0);
        CHECK(x["time_us"].get<double>() > 0);
        CHECK(x["busbw_GBps"].get<double>() > 0);
      }
    }
    // compare reads the run beside the plan: exit 0 or 1 (slower than the H100s it was planned for),
    // never bad input, one row per result.
    auto cmp = run_topoplan("compare --plan " + plan + " --measured " + json + " --json", topoplan::test::source_dir());
    CHECK_MESSAGE((cmp.exit_code == 0 || cmp.exit_code == 1), cmp.err);
    size_t results = 0;
    for (const auto& g : res["groups"]) results += g["results"].size();
    CHECK(nlohmann::json::parse(cmp.out)["rows"].size() == results);
    if (job == "tiny-moe-8") {
      bool alltoall = false;
      for (const auto& g : res["groups"])
        for (const auto& x : g["results"]) alltoall |= g["kind"] == "ep" && x["op"] == "alltoall";
      CHECK(alltoall);
    }
  }
  // A sweep of one kind; then bad input: the wrong world, an unknown kind, NCCL without it.
  const std::string plan = (dir / "tiny-8" / "plan.json").string();
  Shell sweep = shell(mpirun(8, "--plan " + plan + " --kinds tp --sizes 4KiB,1MiB --iters 2"), dir);
  CHECK_MESSAGE(sweep.exit_code == 0, sweep.err);
  // nccl-tests' count: per rank for an all-gather (1 MiB over TP 2: 131072 floats each).
  CHECK(sweep.out.find("     1048576        131072   float      all_gather") != std::string::npos);
  Shell four = shell(mpirun(4, "--plan " + plan), dir);
  CHECK(four.exit_code == 2);
  CHECK(four.err.find("places 8 ranks; this run has 4") != std::string::npos);
  Shell kind = shell(mpirun(8, "--plan " + plan + " --kinds ep"), dir);
  CHECK(kind.exit_code == 2);
  CHECK(kind.err.find("--kinds: the plan has no collectives on ep groups of two or more ranks (it has tp, dp, pp)") != std::string::npos);
  // A step past --timeout-s: every rank says where it was and stops, exit 3, nothing left running.
  Shell slow = shell(mpirun(8, "--plan " + plan + " --kinds dp --sizes 64MiB --iters 100000 --timeout-s 1"), dir);
  CHECK(slow.exit_code == 3);
  CHECK_MESSAGE(slow.err.find(": timed out after 1 s in dp group ") != std::string::npos, slow.err);
  // None left running within 5 s (process names stop at 15 characters).
  CHECK(shell("for i in $(seq 50); do pgrep -x topoplan-valida >/dev/null || exit 0; sleep 0.1; done; exit 1", dir).exit_code == 0);
  // NCCL: runs where every rank has its planned GPU; elsewhere (CI) says what is missing, exit 2.
  Shell nccl = shell(mpirun(8, "--plan " + plan + " --backend nccl --iters 2 --warmup 1"), dir);
  if (nccl.exit_code == 0) {
    CHECK(nccl.out.find("# Out of bounds values : 0 OK") != std::string::npos);
  } else {
    CHECK(nccl.exit_code == 2);
    CHECK_MESSAGE(nccl.err.find("--backend nccl: ") != std::string::npos, nccl.err);
  }
  std::filesystem::remove_all(dir);
}

#else

TEST_CASE("validate: MPI backend (skipped)") {
  MESSAGE("topoplan-validate was not built (MPI not found): skipping the MPI run");
}

#endif

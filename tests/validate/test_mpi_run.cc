// topoplan-validate run for real with the MPI backend: 8 ranks on this machine, on the plans
// topoplan plan writes for the two 8-GPU jobs of data/jobs (tiny-8: TP2 PP2 DP2; tiny-moe-8: DP8
// with EP4), one host of data/clusters/lab-h100.json.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "tests/support.h"
#include "validate/nccl_tests_format.h"

#ifdef TOPOPLAN_TEST_MPI

namespace {

using topoplan::test::run_topoplan;

std::string mpirun(int ranks, const std::string& args) { return topoplan::test::mpirun_validate(ranks, args); }

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
  auto r = run_topoplan("plan --cluster " + (topoplan::test::data_dir() / "clusters" / "lab-h100.json").string() +
                        " --job " + (topoplan::test::data_dir() / "jobs" / (job + ".json")).string() +
                        " --nodes h001 --emit json -o " + out);
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
    std::map<std::string, std::string> token = {{"tp", "tp"},        {"cp", "cp"},        {"dp", "dp-cp"},
                                                {"pp", "pp"},        {"ep", "expert.ep"}, {"etp", "expert.tp"},
                                                {"edp", "expert.dp"}};
    std::set<std::string> issued;  // the group lists the job issues collectives on
    for (const auto& item : p["score"]["items"]) issued.insert(item["group"].get<std::string>());
    for (const auto& [kind, t] : token)
      if (p["groups"].contains(t) && p["groups"][t][0].size() >= 2 && issued.count(t))
        expected_groups += p["groups"][t].size();
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
    // compare reads the run beside the plan: a host-memory run, its values and groups checked and
    // its times not set beside the H100s it was planned for: exit 0, one row per result.
    auto cmp = run_topoplan("compare --plan " + plan + " --measured " + json + " --json", topoplan::test::source_dir());
    CHECK_MESSAGE(cmp.exit_code == 0, cmp.err);
    CHECK(nlohmann::json::parse(cmp.out)["timing_compared"] == false);
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
  const std::string plan = (dir / "tiny-8" / "plan.json").string();
  // nccl-tests mode: one group in a sweep, printed as nccl-tests prints it; the log calibrates.
  {
    const std::string& t = plan;
    Shell nt =
        shell(mpirun(8, "--plan " + t + " --nccl-tests all_gather --group tp:1 -b 4K -e 1M -f 4 -n 3 -w 1"), dir);
    REQUIRE_MESSAGE(nt.exit_code == 0, nt.err);
    CHECK(
        nt.out.starts_with("# Collective test starting: all_gather_perf\n# nThread 1 nGpus 1 minBytes 4096 maxBytes "
                           "1048576 step: 4(factor)"));
    topoplan::Result<topoplan::NcclTestsLog> log = topoplan::nccl_tests_log_parse(nt.out, "sweep.log");
    REQUIRE_MESSAGE(log.ok(), log.error());
    REQUIRE(log->runs.size() == 1);
    const topoplan::NcclTestsRun& run = log->runs.front();
    CHECK(run.op == topoplan::CollectiveOp::all_gather);
    CHECK(run.ranks.size() == 2);
    CHECK(run.ranks[1].device == 3);  // tp group 1 is ranks 2 and 3, on GPUs 2 and 3
    REQUIRE(run.rows.size() == 5);    // 4K, 16K, 64K, 256K, 1M
    for (const auto& row : run.rows) {
      CHECK(row.wrong == 0L);
      CHECK(row.in_place_wrong == 0L);
    }
    const std::string saved = (dir / "all_gather_perf.log").string();
    std::ofstream(saved) << nt.out;
    auto cal =
        run_topoplan("calibrate --nccl-tests " + saved + " --cluster " +
                     (topoplan::test::data_dir() / "clusters" / "lab-h100.json").string() + " --nodes h001 --json");
    CHECK_MESSAGE(cal.exit_code == 0, cal.err);
    CHECK(nlohmann::json::parse(cal.out)["series"].size() == 1);
    // Every rank (kind "world"), its JSON read by compare against the group alone.
    const std::string world = (dir / "world.json").string();
    Shell w = shell(mpirun(8, "--plan " + t + " --nccl-tests all_reduce -b 4K -e 16K -n 2 -w 1 --json " + world), dir);
    REQUIRE_MESSAGE(w.exit_code == 0, w.err);
    auto wc = run_topoplan("compare --plan " + t + " --measured " + world + " --json", topoplan::test::source_dir());
    REQUIRE_MESSAGE(wc.exit_code == 0, wc.err);
    const nlohmann::json rows = nlohmann::json::parse(wc.out)["rows"];
    REQUIRE(rows.size() == 3);  // 4K, 8K, 16K
    CHECK(rows[0]["kind"] == "world");
    CHECK(rows[0]["ranks"].size() == 8);
    CHECK(rows[0]["predicted_with"].is_null());  // host memory: not timed against the model
    // A kind of one-rank groups (tiny-8 has CP 1): NCCL's or MPI's one-rank communicators.
    Shell one = shell(mpirun(8, "--plan " + t + " --nccl-tests all_reduce --group cp:3 -b 4K -e 4K -n 2 -w 1"), dir);
    REQUIRE_MESSAGE(one.exit_code == 0, one.err);
    CHECK(one.out.find("#  Rank  0 Group  0 Pid ") != std::string::npos);
    CHECK(one.out.find("#  Rank  1 ") == std::string::npos);
    CHECK(one.out.find("# Out of bounds values : 0 OK") != std::string::npos);
    // Mode and plan options do not mix.
    CHECK(shell(mpirun(8, "--plan " + t + " --nccl-tests all_gather --kinds tp"), dir).exit_code == 2);
    Shell group = shell(mpirun(8, "--plan " + t + " --nccl-tests all_reduce --group tp:9"), dir);
    CHECK(group.exit_code == 2);
    CHECK(group.err.find("--group tp:9: the plan has 4 tp groups (0 to 3)") != std::string::npos);
  }
  // Loopback calibration end to end: a real sweep, fitted, with sizes held out. How close the
  // held-out sizes come depends on what else the CPUs run, so that is a benchmark
  // (bench/loopback_calibration.sh); test_calibrate fits data the model made.
  {
    const std::string results = (dir / "sweep.json").string(), overlay = (dir / "calibration.json").string();
    Shell sw = shell(mpirun(8, "--plan " + plan +
                                   " --kinds tp,pp --sizes 4KiB,8KiB,16KiB,32KiB,64KiB,128KiB,256KiB --iters 10 "
                                   "--rounds 2 --warmup 2 --json " +
                                   results),
                     dir);
    REQUIRE_MESSAGE(sw.exit_code == 0, sw.err);
    const topoplan::test::RunResult cal =
        run_topoplan("calibrate --measured " + results + " --hold-out 16KiB,64KiB -o " + overlay + " --json",
                     topoplan::test::source_dir());
    CHECK_MESSAGE((cal.exit_code == 0 || cal.exit_code == 1), (cal.out + cal.err));
    const nlohmann::json c = nlohmann::json::parse(cal.out);
    CHECK(c["series"].size() == 12);
    for (const auto& size : c["held_out"]["sizes"])
      MESSAGE("held out ", size["bytes"], ": median error ", size["median_error"]);
    CHECK(c["held_out"]["sizes"].size() == 2);
    // The overlay applies: compare with it.
    auto cmp = run_topoplan("compare --plan " + plan + " --measured " + results + " --calibration " + overlay,
                            topoplan::test::source_dir());
    CHECK_MESSAGE(cmp.exit_code == 0, cmp.err);
  }
  // --alone: each group by itself too; compare shows the measured slowdown (the model's is for GPU
  // runs).
  {
    const std::string results = (dir / "alone.json").string();
    Shell al = shell(mpirun(8, "--plan " + plan + " --kinds pp --alone --iters 3 --warmup 1 --json " + results), dir);
    REQUIRE_MESSAGE(al.exit_code == 0, al.err);
    auto cmp =
        run_topoplan("compare --plan " + plan + " --measured " + results + " --json", topoplan::test::source_dir());
    REQUIRE_MESSAGE(cmp.exit_code == 0, cmp.err);
    const nlohmann::json compared = nlohmann::json::parse(cmp.out);  // kept: a loop over a temporary's member dangles
    for (const auto& row : compared["rows"]) {
      CHECK(row["measured_slowdown"].get<double>() > 0);
      CHECK(row["predicted_slowdown"].is_null());
    }
  }
  // A sweep of one kind; then bad input: the wrong world, an unknown kind, NCCL without it.
  Shell sweep = shell(mpirun(8, "--plan " + plan + " --kinds tp --sizes 4KiB,1MiB --iters 2"), dir);
  CHECK_MESSAGE(sweep.exit_code == 0, sweep.err);
  // nccl-tests' count: per rank for an all-gather (1 MiB over TP 2: 131072 floats each).
  CHECK(sweep.out.find("     1048576        131072   float      all_gather") != std::string::npos);
  Shell four = shell(mpirun(4, "--plan " + plan), dir);
  CHECK(four.exit_code == 2);
  CHECK(four.err.find("places 8 ranks; this run has 4") != std::string::npos);
  Shell kind = shell(mpirun(8, "--plan " + plan + " --kinds ep"), dir);
  CHECK(kind.exit_code == 2);
  CHECK(kind.err.find("--kinds: the plan has no collectives on ep groups of two or more ranks (it has tp, dp, pp)") !=
        std::string::npos);
  // A step past --timeout-s: every rank says where it was and stops, exit 3, nothing left running
  // (the other ranks give rank 0 3 s to report first). Only this run's ranks count: another suite
  // on the machine runs its own. The [e] keeps the pattern from matching this shell's own line.
  const std::string none_left = "for i in $(seq 80); do pgrep -f 'topoplan-validat[e] --plan " + plan +
                                "' >/dev/null || exit 0; sleep 0.1; done; exit 1";
  Shell slow = shell(mpirun(8, "--plan " + plan + " --kinds dp --sizes 64MiB --iters 100000 --timeout-s 1"), dir);
  CHECK(slow.exit_code == 3);
  CHECK_MESSAGE(slow.err.find(": timed out after 1 s in dp group ") != std::string::npos, slow.err);
  CHECK(shell(none_left, dir).exit_code == 0);
  // A rank that stops answering: rank 0 names it and its group, in the JSON too.
  const std::string failed = (dir / "failed.json").string();
  Shell stall = shell(mpirun(8, "--plan " + plan + " --kinds tp --inject-stall 5 --timeout-s 2 --json " + failed), dir);
  CHECK(stall.exit_code == 3);
  // (its last step is the split, unless its report of it was still on the way when it stopped)
  CHECK_MESSAGE(stall.err.find("rank 5 (tp group 2) stopped answering after '") != std::string::npos, stall.err);
  CHECK_MESSAGE(stall.err.find("' while the others wait in 'tp group ") != std::string::npos, stall.err);
  const std::string failed_text = topoplan::test::read_file(failed);
  REQUIRE_MESSAGE(!failed_text.empty(), stall.err);
  const nlohmann::json failure = nlohmann::json::parse(failed_text)["failure"];
  CHECK(failure["reason"] == "timeout");
  REQUIRE(failure["failed"].size() == 1);
  CHECK(failure["failed"][0]["rank"] == 5);
  CHECK(failure["failed"][0]["group"] == nlohmann::json{{"kind", "tp"}, {"index", 2}});
  CHECK(failure["ranks"].size() == 8);
  CHECK(shell(none_left, dir).exit_code == 0);
  // A rank that dies: the launcher stops the others and rank 0 names the rank, in the JSON first
  // (Open MPI 4.1 sends SIGKILL some 50 ms after SIGTERM, which a loaded machine may give to
  // other processes; rank 0 wrote the file already on the SIGCONT a second before).
  const std::string died = (dir / "died.json").string();
  Shell dies = shell(mpirun(8, "--plan " + plan + " --kinds tp --inject-exit 3 --json " + died), dir);
  CHECK(dies.exit_code == 9);
  const std::string died_text = topoplan::test::read_file(died);
  REQUIRE_MESSAGE(!died_text.empty(), dies.err);
  const nlohmann::json death = nlohmann::json::parse(died_text)["failure"];
  CHECK(death["reason"] == "stopped");
  // What holds at any load: the rank that exited is named, first when its word of it came (other
  // ranks may still be behind, splitting communicators, when it goes).
  bool named = false;
  for (const auto& f : death["failed"]) named = named || f["rank"] == 3;
  CHECK_MESSAGE(named, death.dump());
  if (!death["failed"].empty() && death["failed"][0].contains("exited")) {
    CHECK(death["failed"][0]["rank"] == 3);
    CHECK(death["failed"][0]["exited"] == "--inject-exit");
    CHECK_MESSAGE(death["message"].get<std::string>().starts_with(
                      "the launcher stopped the job (a rank exited, or the job was cancelled): rank 3 (tp group 1) "
                      "exited (--inject-exit) after '"),
                  death.dump());
  }
  CHECK(shell(none_left, dir).exit_code == 0);
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

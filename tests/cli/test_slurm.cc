// topoplan slurm inside an allocation faked by its environment: the files it writes, the srun line,
// and every task as srun would start it (SLURM_PROCID and SLURMD_NODENAME from the hostfile's line)
// running rank.sh, which must give the rank the GPU and NIC plan.json has for it.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "tests/support.h"

using topoplan::test::run_topoplan;

namespace {

// Sets the variables for the test's commands, and puts back what was there after.
struct SlurmEnv {
  SlurmEnv(std::initializer_list<std::pair<std::string, std::string>> vars) {
    for (const auto& [k, v] : vars) {
      const char* was = std::getenv(k.c_str());
      saved.push_back({k, was ? std::optional<std::string>(was) : std::nullopt});
      setenv(k.c_str(), v.c_str(), 1);
    }
  }
  SlurmEnv(const SlurmEnv&) = delete;
  SlurmEnv& operator=(const SlurmEnv&) = delete;
  ~SlurmEnv() {
    for (const auto& [k, v] : saved) v ? setenv(k.c_str(), v->c_str(), 1) : unsetenv(k.c_str());
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> saved;
};

std::string shell(const std::string& cmd) {
  const auto dir = topoplan::test::temp_dir("slurm-shell");
  const std::string out = (dir / "out").string();
  const int status = std::system((cmd + " >'" + out + "' 2>&1").c_str());
  return std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ":" + topoplan::test::read_file(out);
}

}  // namespace

TEST_CASE("slurm: plan on the allocation, the files, and each task's GPU and NIC as planned") {
  const std::string job = (topoplan::test::data_dir() / "jobs" / "tiny-8.json").string();
  const auto dir = topoplan::test::temp_dir("slurm-cli");
  const std::string out = (dir / "plan").string();
  SlurmEnv env({{"SLURM_JOB_NODELIST", "h[002-003]"}, {"SLURM_NTASKS", "16"}, {"SLURM_GPUS_ON_NODE", "8"},
                {"SLURM_JOB_ID", "9"}});
  // tiny-8 at dp 4: 16 ranks over the two hosts.
  nlohmann::json j = nlohmann::json::parse(topoplan::test::read_file(job));
  j["parallel"]["dp"] = 4;
  j["training"]["global_batch"] = 16;
  std::ofstream(dir / "tiny16.json") << j.dump();
  const std::string base = "slurm --cluster dgx-h100:4 --job " + (dir / "tiny16.json").string();
  auto r = run_topoplan(base + " -o " + out + " -- python train.py 'a b'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("launch:\n  SLURM_HOSTFILE=" + out + "/slurm.hostfile srun --distribution=arbitrary --ntasks=16 " +
                   out + "/rank.sh python train.py 'a b'\n") != std::string::npos);
  const nlohmann::json plan = nlohmann::json::parse(topoplan::test::read_file(out + "/plan.json"));
  REQUIRE(plan["ranks"].size() == 16);
  // The hostfile's lines are the tasks srun starts, in rank order; each runs rank.sh.
  std::ifstream hostfile(out + "/slurm.hostfile");
  int rank = 0;
  for (std::string host; std::getline(hostfile, host);) {
    if (host.empty() || host[0] == '#') continue;
    const nlohmann::json& want = plan["ranks"][static_cast<size_t>(rank)];
    CHECK(host == want["host"]);
    const std::string got = shell("SLURM_PROCID=" + std::to_string(rank) + " SLURMD_NODENAME=" + host + " " + out +
                                  "/rank.sh sh -c 'echo $CUDA_VISIBLE_DEVICES $NCCL_IB_HCA'");
    INFO("rank " << rank);
    CHECK(got.rfind("0:" + std::to_string(want["gpu"].get<int>()) + " =mlx5_", 0) == 0);
    ++rank;
  }
  CHECK(rank == 16);
  // A task on another host than planned stops.
  CHECK(shell("SLURM_PROCID=0 SLURMD_NODENAME=h004 " + out + "/rank.sh true").starts_with("1:rank.sh: rank 0 runs on h004"));
  // The plan file reads back as the layout it scored.
  auto score = run_topoplan("score --json --cluster dgx-h100:4 --job " + out + "/megatron.args --layout " + out + "/plan.json");
  REQUIRE_MESSAGE(score.exit_code == 0, score.err);
  CHECK(nlohmann::json::parse(score.out)["exposed_comm_s"] == plan["score"]["exposed_comm_s"]);

  // --exec runs srun: a stand-in on PATH shows what it was given.
  const auto bin = dir / "bin";
  std::filesystem::create_directories(bin);
  std::ofstream(bin / "srun") << "#!/bin/sh\necho \"srun: SLURM_HOSTFILE=$SLURM_HOSTFILE $*\"\n";
  std::filesystem::permissions(bin / "srun", std::filesystem::perms::owner_all);
  {
    SlurmEnv none({{"PATH", (dir / "empty").string()}});  // no srun to be found
    auto exec = run_topoplan(base + " --exec -o " + out + " -- true");
    CHECK(exec.exit_code == 2);
    CHECK(exec.err.find("cannot run srun") != std::string::npos);
  }
  SlurmEnv path({{"PATH", bin.string() + ":" + std::string(std::getenv("PATH"))}});
  auto ran = run_topoplan(base + " --exec -o " + out + " -- true");
  REQUIRE_MESSAGE(ran.exit_code == 0, ran.err);
  CHECK(ran.out.find("srun: SLURM_HOSTFILE=" + out + "/slurm.hostfile --distribution=arbitrary --ntasks=16 " + out +
                     "/rank.sh true") != std::string::npos);
}

TEST_CASE("slurm: bad allocations exit 2 naming the variable") {
  const std::string job = (topoplan::test::data_dir() / "jobs" / "llama3-70b.json").string();
  const std::string base = "slurm --cluster dgx-h100:16 --job " + job;
  auto none = run_topoplan(base);
  CHECK(none.exit_code == 2);
  CHECK(none.err.find("SLURM_JOB_NODELIST is not set") != std::string::npos);
  {
    SlurmEnv env({{"SLURM_JOB_NODELIST", "h[001-016]"}, {"SLURM_NTASKS", "8"}});
    auto few = run_topoplan(base);
    CHECK(few.exit_code == 2);
    CHECK(few.err.find("SLURM_NTASKS=8: the allocation runs 8 tasks and the job has 128 ranks") != std::string::npos);
  }
  {
    SlurmEnv env({{"SLURM_JOB_NODELIST", "h[001-015],h099"}});
    auto unknown = run_topoplan(base);
    CHECK(unknown.exit_code == 2);
    CHECK(unknown.err.find("SLURM_JOB_NODELIST: no host 'h099'") != std::string::npos);
  }
  {
    SlurmEnv env({{"SLURM_JOB_NODELIST", "h[001-016]"}});
    CHECK(run_topoplan(base + " --exec").exit_code == 2);  // --exec needs a command
  }
}

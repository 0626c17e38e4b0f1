#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/units.h"
#include "tests/support.h"

using topoplan::test::run_topoplan;

namespace {

std::string job_path(const std::string& name) {
  return (topoplan::test::data_dir() / "jobs" / (name + ".json")).string();
}
std::string cluster_path(const std::string& name) {
  return (topoplan::test::data_dir() / "clusters" / (name + ".json")).string();
}

}  // namespace

TEST_CASE("plan: the README's first command, text and JSON") {
  auto r = run_topoplan("plan --cluster dgx-h100:32 --job " + job_path("llama3-70b"));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.starts_with("plan: llama3-70b on dgx-h100:32, 128 ranks on 16 hosts, order "));
  CHECK(r.out.find("hosts: 16 hosts in 1 leaf group, 1 pod, 1 site") != std::string::npos);
  CHECK(r.out.find("  in rank order: h[001-016]") != std::string::npos);
  CHECK(r.out.find("lower bound") != std::string::npos);
  CHECK(r.err.empty());
  // The same inputs and seed give the same bytes.
  CHECK(run_topoplan("plan --cluster dgx-h100:32 --job " + job_path("llama3-70b")).out == r.out);

  auto j = run_topoplan("plan --cluster dgx-h100:32 --job " + job_path("llama3-70b") + " --json");
  REQUIRE_MESSAGE(j.exit_code == 0, j.err);
  auto doc = nlohmann::json::parse(j.out);
  CHECK(doc["format"] == "topoplan-plan");
  CHECK(doc["ranks"].size() == 128);
  CHECK(doc["ranks"][0].contains("nic"));
  CHECK(doc["groups"]["tp"].size() == 16);
  CHECK(doc["hosts"]["rank_order"].size() == 16);
  CHECK(doc["baselines"].size() == 2);
  CHECK(doc["score"]["exposed_comm_s"].get<double>() > 0);
  CHECK(doc["lower_bound"]["exposed_comm_s"].get<double>() <= doc["score"]["exposed_comm_s"].get<double>());
}

TEST_CASE("plan: files for the launcher, and score reads the plan back to the same numbers") {
  const auto dir = topoplan::test::temp_dir("plan-out");
  // Four hosts from each of four pods, listed pod-interleaved.
  const auto nodes = dir / "nodes";
  {
    std::ofstream f(nodes);
    f << "# an interleaved allocation\n";
    for (int i = 0; i < 4; ++i)
      for (int p = 0; p < 4; ++p) f << "h" << std::setw(4) << std::setfill('0') << 128 * p + i + 1 << "\n";
  }
  const std::string common = "--cluster " + cluster_path("threetier-h100") + " --job " + job_path("llama3-70b");
  auto r = run_topoplan("plan " + common + " --nodes @" + nodes.string() +
                        " --emit json,slurm-hostfile,ompi-rankfile,torchrun,megatron,env -o " + (dir / "out").string());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  for (const char* f :
       {"plan.json", "slurm.hostfile", "ompi.rankfile", "ompi.hostfile", "torchrun.txt", "megatron.args", "ranks.env"})
    CHECK_MESSAGE(std::filesystem::exists(dir / "out" / f), f);
  auto plan = nlohmann::json::parse(topoplan::test::read_file(dir / "out" / "plan.json"));
  auto s = run_topoplan("score " + common + " --layout " + (dir / "out" / "plan.json").string() + " --json");
  REQUIRE_MESSAGE(s.exit_code == 0, s.err);
  auto score = nlohmann::json::parse(s.out);
  CHECK(score["exposed_comm_s"].get<double>() ==
        doctest::Approx(plan["score"]["exposed_comm_s"].get<double>()).epsilon(1e-12));
  // The input order scores worse than the plan.
  CHECK(plan["baselines"][0]["exposed_comm_s"].get<double>() > plan["score"]["exposed_comm_s"].get<double>());
  // The headline: both steps, and what the shared fabric's worst case makes of the difference.
  CHECK(
      plan["baselines"][0]["step_s"].get<double>() ==
      doctest::Approx(plan["score"]["compute_s"].get<double>() + plan["baselines"][0]["exposed_comm_s"].get<double>()));
  REQUIRE(plan["idle_fabric"].is_object());
  CHECK(plan["idle_fabric"]["exposed_comm_s"].get<double>() <= plan["score"]["exposed_comm_s"].get<double>() + 1e-12);
  const std::string head = r.out.substr(0, r.out.find("\n\n"));
  CHECK(head.find(", exposed communication " +
                  topoplan::format_duration(plan["score"]["exposed_comm_s"].get<double>()) +
                  "; the input order's: step ") != std::string::npos);
  CHECK(head.find("% shorter)\nfabric: shared (every other port of every tier busy") != std::string::npos);
  CHECK(head.find("with the job alone (--fabric idle): step ") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("plan: bad input is one clear line and exit 2") {
  const std::string base = "plan --cluster dgx-h100:32 --job " + job_path("llama3-70b");
  struct Case {
    std::string args, error;
  };
  const std::vector<Case> cases = {
      {" --nodes h[001-004]",
       "topoplan: error: " + job_path("llama3-70b") + ": the job needs 128 GPUs; the 4 free hosts have 32 up\n"},
      {" --nodes h[001-016,0x]",
       "topoplan: error: --nodes: hostlist: column 12: expected ',' or ']' after a number, got 'x'\n"},
      {" --nodes h[004-001]", "topoplan: error: --nodes: hostlist: column 3: range 004-001 runs backwards\n"},
      {" --nodes h[001-015],node7",
       "topoplan: error: --nodes: no host 'node7' in the cluster (hosts are named like 'h001')\n"},
      {" --nodes h[001-016],h001", "topoplan: error: --nodes: host 'h001' is listed twice\n"},
      {" --nodes @/nonexistent/nodes", "topoplan: error: --nodes: /nonexistent/nodes: cannot read\n"},
      {" --exclude h001/gpu9",
       "topoplan: error: --exclude: no host, device or link 'h001/gpu9', did you mean 'h001/gpu0'?\n"},
      {" --keep tp-in-domian",
       "topoplan: error: --keep: unknown rule 'tp-in-domian', did you mean 'tp-in-domain'? (rules: tp-in-domain, "
       "dp-only-across-sites, or none)\n"},
      {" --emit json", "topoplan: error: --emit needs -o DIR to write the files into\n"},
      {" --emit slurm-hostfil -o /tmp",
       "topoplan: error: --emit: unknown output format 'slurm-hostfil', did you mean 'slurm-hostfile'? (formats: json, "
       "slurm-hostfile, ompi-rankfile, torchrun, megatron, env, jobset, pytorchjob, mpijob)\n"},
      {" --time-limit soon", "topoplan: error: --time-limit: "},
      {" --emit jobset -o /tmp -- python train.py",
       "topoplan: error: --emit jobset needs the container image (--image) and the command every rank runs (after "
       "--, e.g. -- python pretrain_gpt.py ...)\n"},
      {" --emit pytorchjob -o /tmp --image img",
       "topoplan: error: --emit pytorchjob needs the container image (--image) and the command"},
      {" --emit env -o /tmp --image img -- python train.py",
       "topoplan: error: --image, --queue and a command after -- are for --emit jobset, pytorchjob, mpijob only; no such "
       "format is asked for\n"},
      {" --emit jobset -o /tmp --image img --queue 'Team A' -- python train.py",
       "topoplan: error: --queue 'Team A': a Kueue LocalQueue's name is at most 63 lower-case letters, digits and "
       "'-'"},
  };
  for (const Case& c : cases) {
    auto r = run_topoplan(base + c.args);
    CAPTURE(c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.err.starts_with(c.error));
    CHECK(r.out.empty());
  }
  // Rules asked for that cannot hold.
  auto tp16 = run_topoplan("plan --cluster dgx-h100:4 --job " + job_path("llama3-70b") +
                           " --keep tp-in-domain --nodes h[001-004]");
  CHECK(tp16.exit_code == 2);
}

TEST_CASE("plan: every file it writes reads back to the plan's score, megatron.args as the job") {
  const auto dir = topoplan::test::temp_dir("plan-read-back");
  const std::string out = (dir / "out").string();
  const std::string cluster = "--cluster " + cluster_path("threetier-h100");
  auto r = run_topoplan("plan " + cluster + " --job " + job_path("llama3-70b") +
                        " --nodes h[0001-0004,0129-0132,0257-0260,0385-0388] --emit json,slurm-hostfile,ompi-rankfile,"
                        "torchrun,megatron,env -o " +
                        out);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("note:") == std::string::npos);  // the DGX H100 preset names its NICs
  auto plan = nlohmann::json::parse(topoplan::test::read_file(dir / "out" / "plan.json"));
  const double exposed = plan["score"]["exposed_comm_s"].get<double>();
  auto score = [&](const std::string& args) {
    auto s = run_topoplan("score " + cluster + " " + args + " --json");
    REQUIRE_MESSAGE(s.exit_code == 0, args << ": " << s.err);
    return nlohmann::json::parse(s.out)["exposed_comm_s"].get<double>();
  };
  for (const char* f : {"plan.json", "slurm.hostfile", "ompi.rankfile", "ompi.hostfile", "torchrun.txt", "ranks.env"}) {
    CAPTURE(f);
    CHECK(score("--job " + job_path("llama3-70b") + " --layout " + out + "/" + f) ==
          doctest::Approx(exposed).epsilon(1e-12));
  }
  // The job from megatron.args, its world size from the layout beside it.
  CHECK(score("--job " + out + "/megatron.args --layout " + out + "/plan.json") ==
        doctest::Approx(exposed).epsilon(1e-12));
  CHECK(score("--job " + out + "/megatron.args --layout " + out + "/ranks.env") ==
        doctest::Approx(exposed).epsilon(1e-12));
  auto bad =
      run_topoplan("score " + cluster + " --job " + job_path("llama3-70b") + " --layout " + out + "/megatron.args");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("this is a Megatron-LM argument list") != std::string::npos);

  // A preset that does not name its NICs: ranks.env leaves NCCL_IB_HCA out and plan says why.
  auto l40s =
      run_topoplan("plan --cluster pcie-l40s:2 --job " + job_path("tiny-8") + " --emit env -o " + out + "/l40s");
  REQUIRE_MESSAGE(l40s.exit_code == 0, l40s.err);
  CHECK(
      l40s.out.find("note: ranks.env: NCCL_IB_HCA left out on h001: the cluster does not know the RDMA device names") !=
      std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("plan: a Megatron-LM launch line as the job, bad flags exit 2 naming the line") {
  const auto dir = topoplan::test::temp_dir("plan-launch-line");
  const auto line = dir / "train.sh";
  std::ofstream(line) << "torchrun --nnodes 1 --nproc-per-node 8 pretrain_gpt.py \\\n"
                         "  --num-layers 4 --hidden-size 512 --num-attention-heads 8 --vocab-size 1024 \\\n"
                         "  --seq-length 256 --micro-batch-size 1 --global-batch-size 8 --bf16 \\\n"
                         "  --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 --sequence-parallel \\\n"
                         "  --use-distributed-optimizer --lr 1e-4 --save /ckpt\n";
  auto r = run_topoplan("plan --cluster dgx-h100:2 --job " + line.string() + " --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(nlohmann::json::parse(r.out)["job"]["parallel"]["dp"] == 2);
  std::ofstream(line, std::ios::app) << "--mtp-num-layers 1\n";
  auto bad = run_topoplan("plan --cluster dgx-h100:2 --job " + line.string());
  CHECK(bad.exit_code == 2);
  CHECK(bad.err ==
        "topoplan: error: " + line.string() +
            ":6: '--mtp-num-layers' starts a second command after the launch line of line 1 (a line that goes "
            "on ends with a backslash)\n");
  std::ofstream(line) << "torchrun --nnodes 1 --nproc-per-node 8 pretrain_gpt.py --num-layers 4 --hidden-size 512 \\\n"
                         "  --mtp-num-layers 1\n";
  bad = run_topoplan("plan --cluster dgx-h100:2 --job " + line.string());
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "topoplan: error: " + line.string() +
                       ":2: --mtp-num-layers: multi-token prediction layers beyond --num-layers; the model does not "
                       "follow it, so topoplan cannot score this job\n");
  std::filesystem::remove_all(dir);
}

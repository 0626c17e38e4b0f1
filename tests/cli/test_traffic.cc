#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "planner/job.h"
#include "planner/layout.h"
#include "tests/observe/job_log.h"
#include "tests/support.h"

using namespace topoplan;
using test::run_topoplan;

namespace {

// tiny-8's modelled traffic as NCCL would log it on `cluster`, ranks on the GPUs from `first_gpu`.
std::string write_log(const std::string& name, const std::string& cluster = "dgx-h100:1", size_t first_gpu = 0) {
  const Cluster c = test::load_cluster(cluster);
  const Job job = *job_load((test::data_dir() / "jobs/tiny-8.json").string());
  Layout layout = *layout_default(c, static_cast<int>(first_gpu) + 8);
  layout.gpu_of_rank.erase(layout.gpu_of_rank.begin(), layout.gpu_of_rank.begin() + static_cast<long>(first_gpu));
  const StepTraffic model = *step_traffic(job, *compute_estimate(job, "H100"));
  const auto path = test::temp_dir("cli_traffic") / name;
  std::ofstream(path) << test::job_log(c, job, layout, model);
  return path.string();
}

const std::string kJob = (test::data_dir() / "jobs/tiny-8.json").string();

}  // namespace

TEST_CASE("traffic: a job's log, its communicators and steps, beside the model") {
  const std::string log = write_log("job.log");
  auto r = run_topoplan("traffic --nccl-log " + log);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.starts_with("NCCL 2.21.5: 13 communicators; 3 steps (communicator "));
  CHECK(r.out.find("before the first step (setup), per communicator:\n  4 of 2 ranks: Broadcast 2 MB x 1") !=
        std::string::npos);
  r = run_topoplan("traffic --nccl-log " + log + " --job " + kJob);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("beside tiny-8's model") != std::string::npos);
  CHECK(r.out.find("model lacks") != std::string::npos);
  r = run_topoplan("traffic --nccl-log " + log + " --job " + kJob + " --json");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["format"] == "topoplan-traffic");
  CHECK(j["steps"] == 3);
  int lacks = 0, ok = 0;
  for (const auto& row : j["beside_model"]) {
    lacks += row["verdict"] == "model lacks";
    ok += row["verdict"] == "ok";
  }
  CHECK(lacks == 1);  // the world all-reduce
  // tp, pp and dp groups are all of 2 ranks here: all-gathers, reduce-scatters and sends, as modelled.
  CHECK(ok == 3);
  // --steps wins over the pattern.
  r = run_topoplan("traffic --nccl-log " + log + " --steps 6 --json");
  REQUIRE(r.exit_code == 0);
  CHECK(nlohmann::json::parse(r.out)["steps"] == 6);
}

TEST_CASE("score --traffic: the log's collectives scored on the layout") {
  const std::string log = write_log("job.log");
  const auto dir = test::temp_dir("cli_traffic_score");
  auto r = run_topoplan("traffic --nccl-log " + log + " --json");
  REQUIRE(r.exit_code == 0);
  std::ofstream(dir / "t.json") << r.out;
  auto model = run_topoplan("score --cluster dgx-h100:1 --job " + kJob + " --json");
  auto seen =
      run_topoplan("score --cluster dgx-h100:1 --job " + kJob + " --traffic " + (dir / "t.json").string() + " --json");
  REQUIRE_MESSAGE(seen.exit_code == 0, seen.err);
  const nlohmann::json m = nlohmann::json::parse(model.out), s = nlohmann::json::parse(seen.out);
  CHECK(s["exposed_comm_s"].get<double>() == doctest::Approx(m["exposed_comm_s"].get<double>()).epsilon(0.01));
  CHECK(s["traffic"]["matched"].size() == 12);
  REQUIRE(s["traffic"]["unscored"].size() == 1);
  auto text = run_topoplan("score --cluster dgx-h100:1 --job " + kJob + " --traffic " + (dir / "t.json").string());
  CHECK(text.out.find("traffic from NCCL's log (") != std::string::npos);
  CHECK(text.out.find("left out: ") != std::string::npos);
}

TEST_CASE("traffic and score --traffic: bad input exits 2 and says what") {
  const auto dir = test::temp_dir("cli_traffic_bad");
  std::ofstream(dir / "empty.log") << "hello\nworld\n";
  auto r = run_topoplan("traffic --nccl-log " + (dir / "empty.log").string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find((dir / "empty.log").string()) != std::string::npos);
  r = run_topoplan("traffic --nccl-log " + (dir / "none.log").string());
  CHECK(r.exit_code == 2);
  const std::string log = write_log("job.log");
  r = run_topoplan("traffic --nccl-log " + log + " --tolerance 1");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--tolerance") != std::string::npos);
  r = run_topoplan("traffic --nccl-log " + log + " --steps -2");
  CHECK(r.exit_code == 2);
  // Not a traffic file.
  std::ofstream(dir / "job.json") << test::read_file(kJob);
  r = run_topoplan("score --cluster dgx-h100:1 --job " + kJob + " --traffic " + (dir / "job.json").string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("topoplan traffic --json") != std::string::npos);
  // A log from the second host of two, scored on a cluster of one.
  const std::string other = write_log("h002.log", "dgx-h100:2", 8);
  r = run_topoplan("traffic --nccl-log " + other + " --json");
  REQUIRE(r.exit_code == 0);
  std::ofstream(dir / "h002.json") << r.out;
  r = run_topoplan("score --cluster dgx-h100:1 --job " + kJob + " --traffic " + (dir / "h002.json").string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("runs on host 'h002', which the cluster lacks") != std::string::npos);
  // On two hosts with the default layout (h001), no communicator is a group.
  r = run_topoplan("score --cluster dgx-h100:2 --job " + kJob + " --traffic " + (dir / "h002.json").string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("no communicator of the log is a group of the job in this layout") != std::string::npos);
}

#include "planner/job_inputs.h"

#include <doctest/doctest.h>

#include <fstream>

#include "planner/plan_json.h"
#include "tests/support.h"

namespace topoplan {
namespace {

std::string job_path(const std::string& name) { return (test::data_dir() / "jobs" / name).string(); }

TEST_CASE("job_inputs_load: the default layout, a router and the shared fabric") {
  Result<std::unique_ptr<JobInputs>> in = job_inputs_load("dgx-h100:1", job_path("tiny-8.json"), "", {});
  REQUIRE_MESSAGE(in.ok(), (in ? "" : in.error()));
  const JobInputs& i = **in;
  CHECK(i.layout.world_size() == job_ranks(i.job));
  CHECK(i.router != nullptr);
  CHECK(i.model.options.fabric == FabricMode::shared);
  CHECK(i.model.options.calibration == &i.model.calibration);
  CHECK(i.model.options.background == nullptr);
}

TEST_CASE("job_inputs_load: an idle fabric, and errors that name what failed") {
  ModelSources idle;
  idle.fabric = "idle";
  Result<std::unique_ptr<JobInputs>> in = job_inputs_load("dgx-h100:1", job_path("tiny-8.json"), "", idle);
  REQUIRE(in.ok());
  CHECK((*in)->model.options.fabric == FabricMode::idle);

  ModelSources missing;
  missing.calibration = "no-such-calibration.json";
  Result<std::unique_ptr<JobInputs>> bad = job_inputs_load("dgx-h100:1", job_path("tiny-8.json"), "", missing);
  REQUIRE(!bad.ok());
  CHECK(bad.error().find("no-such-calibration.json") != std::string::npos);

  // 405B on one node of eight GPUs does not fit: the error names the job file.
  Result<std::unique_ptr<JobInputs>> big = job_inputs_load("dgx-h100:1", job_path("llama3-405b.json"), "", {});
  REQUIRE(!big.ok());
  CHECK(big.error().rfind(job_path("llama3-405b.json") + ": ", 0) == 0);
}

TEST_CASE("world_from_layout_or_cluster: every GPU of the cluster without a layout") {
  const Cluster c = test::load_cluster("dgx-h100:2");
  Result<WorldHint> w = world_from_layout_or_cluster(c, "dgx-h100:2", "");
  REQUIRE(w.ok());
  CHECK(w->ranks == 16);
  CHECK(w->from == "the 16 GPUs of cluster dgx-h100:2");
}

TEST_CASE("job_inputs_from_plan: a plan file without a cluster needs --cluster") {
  const std::filesystem::path dir = test::temp_dir("job_inputs_from_plan");
  const std::string plan = (dir / "plan.json").string();
  std::ofstream(plan) << "{\"format\": \"" << kPlanFormat << "\", \"job\": {}}";
  Result<std::unique_ptr<JobInputs>> in = job_inputs_from_plan(plan, "", {});
  REQUIRE(!in.ok());
  CHECK(in.error().find("cluster") != std::string::npos);
}

}  // namespace
}  // namespace topoplan

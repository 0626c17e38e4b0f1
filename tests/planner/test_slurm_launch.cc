// The allocation as Slurm's environment gives it, checked against the cluster and the job, and the
// srun line topoplan slurm prints.
#include "planner/slurm_launch.h"

#include <doctest/doctest.h>

#include <map>

#include "tests/support.h"

namespace topoplan {
namespace {

Result<SlurmAllocation> read(const Cluster& c, const std::map<std::string, std::string>& vars) {
  return slurm_allocation_read(c, [&](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

}  // namespace

TEST_CASE("slurm allocation: read from the environment, errors naming the variable") {
  const Cluster c = test::load_cluster("dgx-h100:8");
  Result<SlurmAllocation> a = read(c, {{"SLURM_JOB_NODELIST", "h[003-004],h001"},
                                       {"SLURM_NTASKS", "24"},
                                       {"SLURM_GPUS_ON_NODE", "8"},
                                       {"SLURM_JOB_ID", "77"}});
  REQUIRE_MESSAGE(a.ok(), (a ? "" : a.error()));
  CHECK(a->hosts == std::vector<int>{2, 3, 0});
  CHECK(a->ntasks == 24);
  CHECK(a->gpus_on_node == 8);
  CHECK(a->job_id == "77");
  CHECK(slurm_allocation_check(c, *a, 24).ok());
  CHECK(slurm_allocation_check(c, *a, 16).ok());  // more tasks than ranks: srun asks for the ranks
  CHECK(slurm_allocation_check(c, *a, 32).error().starts_with("SLURM_NTASKS=24: the allocation runs 24 tasks"));
  a->gpus_on_node = 4;
  CHECK(slurm_allocation_check(c, *a, 24).error().starts_with("SLURM_GPUS_ON_NODE=4: the allocation has 4 of h003's 8"));
  // The older name, and nothing else set.
  Result<SlurmAllocation> old = read(c, {{"SLURM_NODELIST", "h005"}});
  REQUIRE(old.ok());
  CHECK(old->hosts == std::vector<int>{4});
  CHECK(old->ntasks == 0);
  CHECK(old->job_id.empty());

  CHECK(read(c, {}).error().starts_with("SLURM_JOB_NODELIST is not set"));
  CHECK(read(c, {{"SLURM_JOB_NODELIST", "h[001-"}}).error().starts_with("SLURM_JOB_NODELIST: "));
  CHECK(read(c, {{"SLURM_JOB_NODELIST", "h009"}}).error().starts_with("SLURM_JOB_NODELIST: no host 'h009'"));
  for (const char* bad : {"x", "0", "-3", "8x", ""})
    CHECK(read(c, {{"SLURM_JOB_NODELIST", "h001"}, {"SLURM_NTASKS", bad}})
              .error()
              .ends_with("': expected a whole number above 0"));
  CHECK(read(c, {{"SLURM_JOB_NODELIST", "h001"}, {"SLURM_GPUS_ON_NODE", "eight"}})
            .error()
            .starts_with("SLURM_GPUS_ON_NODE='eight'"));
}

TEST_CASE("slurm allocation: the srun line") {
  CHECK(slurm_srun_words("/run/p", 16, {"python", "train.py"}) ==
        std::vector<std::string>{"srun", "--distribution=arbitrary", "--ntasks=16", "/run/p/rank.sh", "python",
                                 "train.py"});
  const std::string wrapper = slurm_rank_wrapper("/run/it's here/ranks.env");
  CHECK(wrapper.starts_with("#!/bin/sh\n"));
  CHECK(wrapper.find("envfile='/run/it'\\''s here/ranks.env'\n") != std::string::npos);
}

}  // namespace topoplan

// plan -o DIR: the plan file and the files of --emit's formats, written into one folder, each read
// back by the tests as the launcher would read it (docs/plan-outputs.md).
#pragma once

#include <string>
#include <vector>

#include "base/error.h"
#include "planner/emit/emit.h"
#include "planner/plan.h"

namespace topoplan {

struct PlanFiles {
  std::vector<std::string> written;  // paths, in the order written
  std::vector<std::string> notes;    // "slurm.hostfile: ...": what a file had to leave out
};

// Creates `dir` if needed. `cluster_spec` is what the plan file records as its cluster.
Result<PlanFiles> plan_files_write(const std::string& dir, const EmitList& what, const Cluster& cluster,
                                   const Router& router, const std::string& cluster_spec, const Plan& plan,
                                   const PlanRequest& request);

}  // namespace topoplan

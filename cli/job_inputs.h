// What score, review and explain read: the job, the cluster, the layout (a plan file brings its
// order string and what it found down), the router around what is down, and the model flags.
#pragma once

#include <memory>
#include <string>

#include "cli/model_flags.h"
#include "planner/score.h"

namespace topoplan::cli {

struct JobInputs {
  Job job;
  Cluster cluster;
  DownSet down;
  std::unique_ptr<Router> router;
  Layout layout;
  ModelInputs model;
};

// What --layout takes, for every command that reads a layout.
inline constexpr const char* kLayoutHelp =
    "rank -> GPU map (docs/layout-formats.md): a plan file (plan.json), JSON, a host list in rank order (h001 per "
    "rank as in SLURM_HOSTFILE, h[001-004], h001 slots=8), an Open MPI rankfile, or plan's ranks.env or torchrun.txt";

// `layout` empty: the default layout (docs/layout-formats.md). Errors name the file and what was
// expected.
Result<std::unique_ptr<JobInputs>> job_inputs_load(const std::string& cluster, const std::string& job,
                                                   const std::string& layout, const ModelFlags& flags);
// The same for a job already read (a plan file's); `job_where` names it in errors.
Result<std::unique_ptr<JobInputs>> job_inputs_make(const std::string& cluster, Job job, const std::string& job_where,
                                                   const std::string& layout, const ModelFlags& flags);

// A plan file's job and layout on the cluster it names (`cluster` empty) or on `cluster`.
Result<std::unique_ptr<JobInputs>> job_inputs_from_plan(const std::string& plan, const std::string& cluster,
                                                        const ModelFlags& flags);

}  // namespace topoplan::cli

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
// --job's help, the same for every command that scores a job.
inline constexpr const char* kJobHelp =
    "job file (docs/job-format.md), e.g. data/jobs/llama3-70b.json, or a file of Megatron-LM arguments or a whole "
    "torchrun ... pretrain_gpt.py launch line (docs/job-format.md, \"Megatron-LM arguments\")";
inline constexpr const char* kLayoutHelp =
    "rank -> GPU map (docs/layout-formats.md): a plan file (plan.json), JSON, a host list in rank order (h001 per "
    "rank as in SLURM_HOSTFILE, h[001-004], h001 slots=8), an Open MPI rankfile, or plan's ranks.env or torchrun.txt";

// `layout` empty: the default layout (docs/layout-formats.md). Errors name the file and what was
// expected. A job given as Megatron-LM arguments without a world size takes the layout's ranks,
// else the cluster's GPUs.
Result<std::unique_ptr<JobInputs>> job_inputs_load(const std::string& cluster, const std::string& job,
                                                   const std::string& layout, const ModelFlags& flags);
// The world size of a Megatron-LM argument list that does not give it: the ranks of the layout
// file when there is one, else every GPU of the cluster (docs/job-format.md).
Result<WorldHint> world_from_layout_or_cluster(const Cluster& cluster, const std::string& cluster_arg,
                                               const std::string& layout_path);
// The same for a job already read (a plan file's); `job_where` names it in errors.
Result<std::unique_ptr<JobInputs>> job_inputs_make(const std::string& cluster, Job job, const std::string& job_where,
                                                   const std::string& layout, const ModelFlags& flags);

// A plan file's job and layout on the cluster it names (`cluster` empty) or on `cluster`.
Result<std::unique_ptr<JobInputs>> job_inputs_from_plan(const std::string& plan, const std::string& cluster,
                                                        const ModelFlags& flags);

}  // namespace topoplan::cli

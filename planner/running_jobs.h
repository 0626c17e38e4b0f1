// The jobs already running on a cluster (--running): each a job and where its ranks run, so the
// traffic they put on the fabric can be scored beside a new job's (planner/contention.h).
// docs/model.md, "Jobs beside each other".
#pragma once

#include <string>
#include <vector>

#include "planner/job.h"
#include "planner/layout.h"
#include "topology/down.h"

namespace topoplan {

inline constexpr const char* kRunningFormat = "topoplan-running";

struct RunningJob {
  std::string name;   // unique among the running jobs
  std::string where;  // for messages: "running.json: jobs[2]", or the plan file
  Job job;            // with the order string its layout was placed under
  Layout layout;
};

struct RunningJobs {
  std::string source;
  std::vector<RunningJob> jobs;
  // What the plans avoided (--exclude), every plan's together: a link down is down for all.
  std::vector<std::string> down;
};

// `path` is one of
//  - a running-jobs file, paths in it relative to its folder:
//      {"format": "topoplan-running", "jobs": [
//        {"name": "pretrain", "plan": "pretrain/plan.json"},
//        {"name": "sft", "job": "sft.json", "layout": "sft.hosts"}]}
//    "plan" brings the job and its placement; "job" (a job file or Megatron-LM arguments) takes
//    "layout" (any layout file, docs/layout-formats.md); "name" defaults to the job's name;
//  - a folder of plan files (every *.json in it, by file name; each named by its file's stem);
//  - one plan file.
// Errors name the file and the entry; two jobs with a rank on one GPU, or a host the cluster
// lacks, are errors.
Result<RunningJobs> running_jobs_load(const std::string& path, const Cluster& cluster);

// `down` and what the running jobs' plans found down, together: a link down is down for every job.
Result<DownSet> running_jobs_down(const Cluster& cluster, const DownSet& down, const RunningJobs& running);

}  // namespace topoplan

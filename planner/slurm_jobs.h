// What Slurm says is running (`squeue --json`, or `scontrol show job`'s text), told apart by the
// first character: each job's id, name, state and nodes. The running-jobs file maps them to job
// files (planner/running_jobs.h).
#pragma once

#include <string>
#include <vector>

#include "base/error.h"

namespace topoplan {

struct SlurmJob {
  std::string id, name, state;  // state as Slurm writes it: RUNNING, PENDING ...
  std::string nodes;            // a hostlist ("h[001-004]"); "" when none is allocated
  int line = 0;                 // where the job starts in the file (1-based; 0 for JSON)
};

// Errors name `where` and the line or the job entry: "squeue.json: jobs[2].nodes: expected a
// hostlist string", "jobs.txt:14: JobId=12 has no NodeList".
Result<std::vector<SlurmJob>> slurm_jobs_parse(const std::string& text, const std::string& where);

}  // namespace topoplan

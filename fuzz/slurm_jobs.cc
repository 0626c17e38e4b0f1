// What Slurm says is running: squeue --json or scontrol show job, every job with an id and a state.
#include "planner/slurm_jobs.h"
#include "fuzz/fuzz.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Result<std::vector<SlurmJob>> jobs = slurm_jobs_parse(fuzz::text(data, size), "jobs.txt");
  if (!fuzz::ok_or_explained(jobs)) return 0;
  for (const SlurmJob& j : *jobs)
    if (j.id.empty() || j.state.empty()) fuzz::violated("a job without an id or a state:", j.id + " " + j.state);
  return 0;
}

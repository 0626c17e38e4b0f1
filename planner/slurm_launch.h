// The plan inside a Slurm allocation (topoplan slurm): the allocation as Slurm's environment gives
// it to a batch script, checked against the cluster and the job; the wrapper each task runs; and
// the srun line that starts the ranks where the plan put them. docs/plan-outputs.md, "Inside an
// allocation".
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "topology/cluster.h"

namespace topoplan {

struct SlurmAllocation {
  std::vector<int> hosts;  // SLURM_JOB_NODELIST, in Slurm's order
  int ntasks = 0;          // SLURM_NTASKS; 0 when unset
  int gpus_on_node = 0;    // SLURM_GPUS_ON_NODE; 0 when unset
  std::string job_id;      // SLURM_JOB_ID; "" when unset
};

// `env` looks a variable up (getenv in the tool), nullptr when unset. Errors name the variable:
// unset nodelist (not inside an allocation), a host the cluster lacks, a count that is no number.
Result<SlurmAllocation> slurm_allocation_read(const Cluster& cluster,
                                              const std::function<const char*(const char*)>& env);
// What would keep srun from starting `ranks` tasks on whole hosts as planned: fewer tasks than
// ranks, or only some of each host's GPUs (Slurm, not the plan, would pick which).
Result<void> slurm_allocation_check(const Cluster& cluster, const SlurmAllocation& allocation, int ranks);

// The script every task runs first: checks that Slurm started it on the host its rank was planned
// on (SLURMD_NODENAME against the rank's line of ranks.env), exports that line's variables, then
// runs the command. `ranks_env`: the path of ranks.env as the tasks see it.
std::string slurm_rank_wrapper(const std::string& ranks_env);

// SLURM_HOSTFILE=DIR/slurm.hostfile srun --distribution=arbitrary --ntasks=N DIR/rank.sh COMMAND:
// the words after the variable; `dir` as the tasks see it.
std::vector<std::string> slurm_srun_words(const std::string& dir, int ranks, const std::vector<std::string>& command);

}  // namespace topoplan

#include "planner/slurm_launch.h"

#include <charconv>

#include "base/hostlist.h"
#include "base/shell_words.h"
#include "planner/host_choice.h"

namespace topoplan {
namespace {

// A count Slurm set: a whole number above zero.
Result<int> count(const char* name, const char* value) {
  const std::string text = value;
  int n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n <= 0)
    return Error{std::string(name) + "='" + text + "': expected a whole number above 0"};
  return n;
}

}  // namespace

Result<SlurmAllocation> slurm_allocation_read(const Cluster& c, const std::function<const char*(const char*)>& env) {
  const char* name = "SLURM_JOB_NODELIST";
  const char* list = env(name);
  if (!list) list = env(name = "SLURM_NODELIST");
  if (!list)
    return Error{"SLURM_JOB_NODELIST is not set: run inside an allocation (an sbatch script, salloc), or plan "
                 "with topoplan plan --nodes"};
  Result<std::vector<std::string>> names = hostlist_expand(list);
  if (!names) return Error{std::string(name) + ": " + names.error()};
  Result<std::vector<int>> hosts = hosts_by_name(c, *names);
  if (!hosts) return Error{std::string(name) + ": " + hosts.error()};
  SlurmAllocation a;
  a.hosts = std::move(*hosts);
  for (auto [var, into] : {std::pair{"SLURM_NTASKS", &a.ntasks}, std::pair{"SLURM_GPUS_ON_NODE", &a.gpus_on_node}})
    if (const char* v = env(var)) {
      Result<int> n = count(var, v);
      RETURN_IF_ERROR(n);
      *into = *n;
    }
  if (const char* id = env("SLURM_JOB_ID")) a.job_id = id;
  return a;
}

Result<void> slurm_allocation_check(const Cluster& c, const SlurmAllocation& a, int ranks) {
  if (a.ntasks > 0 && a.ntasks < ranks)
    return Error{"SLURM_NTASKS=" + std::to_string(a.ntasks) + ": the allocation runs " + std::to_string(a.ntasks) +
                 " tasks and the job has " + std::to_string(ranks) +
                 " ranks (ask sbatch for --ntasks-per-node equal to each host's GPUs)"};
  if (a.gpus_on_node > 0)
    for (int h : a.hosts) {
      const Host& host = c.hosts()[static_cast<size_t>(h)];
      if (a.gpus_on_node != static_cast<int>(host.gpus.size()))
        return Error{"SLURM_GPUS_ON_NODE=" + std::to_string(a.gpus_on_node) + ": the allocation has " +
                     std::to_string(a.gpus_on_node) + " of " + host.name + "'s " + std::to_string(host.gpus.size()) +
                     " GPUs, and Slurm picks which; topoplan plans whole hosts (sbatch --gpus-per-node=" +
                     std::to_string(host.gpus.size()) + " or --exclusive)"};
    }
  return {};
}

std::string slurm_rank_wrapper(const std::string& ranks_env) {
  return "#!/bin/sh\n"
         "# topoplan slurm: run by every task before its command. Checks that Slurm started the task on the\n"
         "# host its rank was planned on, exports the rank's line of ranks.env (CUDA_VISIBLE_DEVICES,\n"
         "# NCCL_IB_HCA), then runs the command.\n"
         "envfile=" + shell_word(ranks_env) +
         "\n"
         "rank=${SLURM_PROCID:?rank.sh: SLURM_PROCID is not set: start it with srun}\n"
         "line=$(awk -v r=\"$rank\" '$1 == r' \"$envfile\")\n"
         "[ -n \"$line\" ] || { echo \"rank.sh: rank $rank is not in $envfile\" >&2; exit 1; }\n"
         "set -- $line -- \"$@\"\n"
         "host=$2\n"
         "if [ -n \"$SLURMD_NODENAME\" ] && [ \"$SLURMD_NODENAME\" != \"$host\" ]; then\n"
         "  echo \"rank.sh: rank $rank runs on $SLURMD_NODENAME, the plan put it on $host\" >&2\n"
         "  exit 1\n"
         "fi\n"
         "shift 2\n"
         "while [ \"$1\" != -- ]; do export \"$1\"; shift; done\n"
         "shift\n"
         "exec \"$@\"\n";
}

std::vector<std::string> slurm_srun_words(const std::string& dir, int ranks, const std::vector<std::string>& command) {
  std::vector<std::string> words = {"srun", "--distribution=arbitrary", "--ntasks=" + std::to_string(ranks),
                                    dir + "/rank.sh"};
  words.insert(words.end(), command.begin(), command.end());
  return words;
}

}  // namespace topoplan

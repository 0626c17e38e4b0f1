#include "cli/host_flags.h"

#include "base/list_arg.h"
#include "planner/host_choice.h"

namespace topoplan::cli {

Result<std::vector<int>> nodes_flag(const Cluster& c, const std::string& value, const std::string& flag) {
  Result<std::vector<std::string>> names = list_arg_entries(value, flag, value[0] != '@');
  RETURN_IF_ERROR(names);
  Result<std::vector<int>> hosts = hosts_by_name(c, *names);
  if (!hosts) return Error{flag + ": " + hosts.error()};
  return hosts;
}

Result<DownSet> exclude_flag(const Cluster& c, const std::string& exclude) {
  Result<std::vector<std::string>> names = list_arg_entries(exclude, "--exclude", false);
  RETURN_IF_ERROR(names);
  return down_parse(c, *names);
}

Result<std::optional<RunningJobs>> running_flag(const Cluster& c, const std::string& path, DownSet& down) {
  if (path.empty()) return std::optional<RunningJobs>();
  Result<RunningJobs> running = running_jobs_load(path, c);
  RETURN_IF_ERROR(running);
  Result<DownSet> both = running_jobs_down(c, down, *running);
  RETURN_IF_ERROR(both);
  down = std::move(*both);
  return std::optional<RunningJobs>(std::move(*running));
}

}  // namespace topoplan::cli

#include "cli/host_flags.h"

#include "base/list_arg.h"
#include "planner/host_choice.h"

namespace topoplan::cli {

Result<std::vector<int>> nodes_flag(const Cluster& c, const std::string& nodes) {
  Result<std::vector<std::string>> names = list_arg_entries(nodes, "--nodes", nodes[0] != '@');
  RETURN_IF_ERROR(names);
  return hosts_by_name(c, *names);
}

Result<DownSet> exclude_flag(const Cluster& c, const std::string& exclude) {
  Result<std::vector<std::string>> names = list_arg_entries(exclude, "--exclude", false);
  RETURN_IF_ERROR(names);
  return down_parse(c, *names);
}

}  // namespace topoplan::cli

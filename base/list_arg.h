// The values of an option that takes a list inline or from a file: "@FILE" -> the file's lines
// without comments (#) and blanks; anything else -> the text itself, a Slurm hostlist when
// `hostlist`, else comma-separated. Errors start with `option`.
#pragma once

#include <string>
#include <vector>

#include "base/error.h"

namespace topoplan {

Result<std::vector<std::string>> list_arg_entries(const std::string& arg, const std::string& option, bool hostlist);

}  // namespace topoplan

// --emit and -o, as plan and replan take them: with -o alone the plan file, else the formats named,
// which need -o.
#pragma once

#include <string>

#include "planner/emit/emit.h"

namespace topoplan::cli {

Result<EmitList> emit_flags(const std::string& emit, const std::string& out_dir);

}  // namespace topoplan::cli

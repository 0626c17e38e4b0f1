// --emit and -o, as plan and replan take them: with -o alone the plan file, else the formats named,
// which need -o.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "planner/emit/emit.h"

namespace topoplan::cli {

// Adds --emit and -o,--output; `out_help` says what the folder receives.
void emit_flags_add(CLI::App& app, std::string& emit, std::string& out_dir, const std::string& out_help);
Result<EmitList> emit_flags(const std::string& emit, const std::string& out_dir);

}  // namespace topoplan::cli

// --emit and -o, as plan and replan take them: with -o alone the plan file, else the formats named,
// which need -o; and what the Kubernetes manifests run (--image, --queue, the command after --).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "planner/emit/emit.h"

namespace topoplan::cli {

struct EmitFlags {
  std::string emit, out_dir;
  EmitLaunch launch;
};

// Adds --emit, -o,--output, --image, --queue and the command after --; `out_help` says what the
// folder receives.
void emit_flags_add(CLI::App& app, EmitFlags& flags, const std::string& out_help);
// An error when a Kubernetes format lacks its image or command, or those are given without one.
Result<EmitList> emit_flags(const EmitFlags& flags);

}  // namespace topoplan::cli

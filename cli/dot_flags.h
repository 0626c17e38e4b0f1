// The --dot FILE and --dot-hosts flags of the commands that draw a job's load on the cluster
// (score, explain), and the drawing they write.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "topology/formats/dot.h"

namespace topoplan::cli {

struct DotFlags {
  std::string file, hosts{to_string(DotHosts::collapse)};
};

void dot_flags_add(CLI::App& app, DotFlags& flags, const std::string& help);

// Errors name the file.
Result<void> dot_write(const std::string& path, const Cluster& cluster, const DotLoad& load, DotHosts hosts);

}  // namespace topoplan::cli

// Test helpers: where the repository, the built binary and ../shared are.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "topology/cluster.h"

namespace topoplan::test {

inline std::filesystem::path source_dir() { return TOPOPLAN_SOURCE_DIR; }
inline std::filesystem::path data_dir() { return source_dir() / "data"; }

// ../shared/reference, or nullopt (print a skip message) when the project is built alone.
std::optional<std::filesystem::path> reference_dir();

// Runs the topoplan binary with arguments; captures stdout and stderr separately.
struct RunResult {
  int exit_code = -1;
  std::string out, err;
};
RunResult run_topoplan(const std::string& args);

std::string read_file(const std::filesystem::path& path);
// A cluster from a preset spec or file; the test stops with the loader's message if it fails.
Cluster load_cluster(const std::string& spec);

// A fresh temporary directory for one test.
std::filesystem::path temp_dir(const std::string& name);

}  // namespace topoplan::test

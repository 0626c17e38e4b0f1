// Test helpers: where the repository, the built binary and ../shared are.
#pragma once

#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>

#include "planner/job.h"
#include "topology/cluster.h"

namespace topoplan::test {

std::filesystem::path source_dir();
inline std::filesystem::path data_dir() { return source_dir() / "data"; }

// ../shared/reference, or nullopt (print a skip message) when the project is built alone.
std::optional<std::filesystem::path> reference_dir();
// Whether ../shared/reference is absent, for `TEST_CASE(... * doctest::skip(test::reference_absent()))`,
// so that a test that reads it is reported as skipped, not passed, when it cannot run.
bool reference_absent();
// A real topology file in ../shared/reference/samples (only in tests that skip when it is absent).
std::filesystem::path sample_path(const std::string& name);

// Runs the topoplan binary with arguments, in `cwd` when given (so relative paths in its output
// are the same on every machine); captures stdout and stderr separately.
struct RunResult {
  int exit_code = -1;
  std::string out, err;
};
RunResult run_topoplan(const std::string& args, const std::filesystem::path& cwd = {});
#ifdef TOPOPLAN_TEST_MPI
// `mpiexec` for `ranks` ranks of topoplan-validate with `args`, as one shell command.
std::string mpirun_validate(int ranks, const std::string& args);
#endif

std::string read_file(const std::filesystem::path& path);
// A cluster from a preset spec or file; the test stops with the loader's message if it fails.
Cluster load_cluster(const std::string& spec);

// Hand-built clusters: a device "<host>/<name>" of host `host` (GPUs are H100-SXM), and a leaf
// switch "leaf0" (tier 1) with the named NICs cabled to it at 50 GB/s, 1 us.
VertexId add_device(Cluster& c, int host, const std::string& name, DeviceKind kind, int local_index = 0, int rail = -1);
VertexId add_leaf(Cluster& c, std::initializer_list<const char*> nics);

// A small dense job whose figures the planner tests compute by hand: 4 layers of h 1024, 16
// heads (MHA), a plain 4h MLP, vocab 32000, s 2048, global batch 8; tp 2 pp 2 dp 2 with sequence
// parallelism and the distributed optimizer (ZeRO 1); 1000 TFLOPS at 50%.
Job small_job();

// A fresh temporary directory for one test.
std::filesystem::path temp_dir(const std::string& name);

}  // namespace topoplan::test

// topoplan-validate: the plan's own collectives run on the machines, one rank per planned GPU,
// launched in the plan's order (mpirun with the plan's rankfile, or srun). Writes the results as
// JSON (--json) and prints nccl-tests' table on rank 0. Exit 0 when every result is right, 1 when
// an element is wrong, 2 on bad input, 3 when a rank timed out (every rank stops).
#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>

#include "validate/harness.h"
#include "validate/mpi/mpi_backend.h"
#ifdef TOPOPLAN_HAVE_NCCL
#include "validate/nccl/nccl_backend.h"
#endif

using namespace topoplan;

namespace {

// Stops the job when a stage outlives the timeout: a hung peer would otherwise hold every rank in
// its collective forever. Says which stage on which rank, then exits.
class Watchdog {
 public:
  Watchdog(double timeout_s, int rank) : timeout_s_(timeout_s), rank_(rank), thread_([this] { watch(); }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(m_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void stage(const std::string& what) {
    std::lock_guard<std::mutex> lock(m_);
    stage_ = what;
    since_ = std::chrono::steady_clock::now();
  }

 private:
  void watch() {
    std::unique_lock<std::mutex> lock(m_);
    while (!done_) {
      cv_.wait_for(lock, std::chrono::milliseconds(200));
      const double held = std::chrono::duration<double>(std::chrono::steady_clock::now() - since_).count();
      if (!done_ && held > timeout_s_) {
        std::fprintf(stderr, "topoplan-validate: rank %d: timed out after %.0f s in %s; stopping\n", rank_, timeout_s_,
                     stage_.c_str());
        std::fflush(stderr);
        // No MPI call from this thread: the launcher sees the exit and stops the other ranks.
        std::_Exit(3);
      }
    }
  }
  double timeout_s_;
  int rank_;
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  std::string stage_ = "starting";
  std::chrono::steady_clock::time_point since_ = std::chrono::steady_clock::now();
  std::thread thread_;
};

int fail(int rank, const std::string& message, int code) {
  if (rank == 0) std::fprintf(stderr, "topoplan-validate: error: %s\n", message.c_str());
  return code;
}

int run(int argc, char** argv, int rank) {
  CLI::App app{"topoplan-validate: run a plan's collectives on its machines, check and time them"};
  std::string plan_path, backend = "mpi", kinds, sizes, json_path;
  int iters = 20, warmup = 5;
  int timeout_s = 300;
  app.add_option("--plan", plan_path, "plan file (topoplan plan --emit json)")->required();
  app.add_option("--backend", backend, "mpi (host buffers, any machine) or nccl (one GPU per rank, the plan's)");
  app.add_option("--kinds", kinds, "group kinds to run, e.g. tp,dp (default: every kind the plan has)");
  app.add_option("--sizes", sizes, "sizes to run instead of the planned ones, e.g. 1KiB,1MiB,64MiB");
  app.add_option("--iters", iters, "timed iterations per size")->check(CLI::Range(1, 100000));
  app.add_option("--warmup", warmup, "untimed iterations first")->check(CLI::Range(0, 100000));
  app.add_option("--timeout-s", timeout_s, "seconds any one step may take before every rank stops")->check(CLI::Range(1, 86400));
  app.add_option("--json", json_path, "write the results as JSON (rank 0)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      if (rank == 0) std::cout << app.help();
      return 0;
    }
    return fail(rank, e.what(), 2);
  }
  if (backend != "mpi" && backend != "nccl") return fail(rank, "--backend: expected mpi or nccl, got '" + backend + "'", 2);
#ifndef TOPOPLAN_HAVE_NCCL
  if (backend == "nccl")
    return fail(rank, "--backend nccl: this build has no NCCL backend (CUDA and NCCL were not found when it was built)", 2);
#endif
  Result<ValidatePlan> plan = validate_plan_read(plan_path);
  if (!plan) return fail(rank, plan.error(), 2);
  Result<std::vector<ValidateKind>> selected = validate_kinds_select(*plan, kinds);
  if (!selected) return fail(rank, selected.error(), 2);
  ValidateOptions options;
  options.iters = iters;
  options.warmup = warmup;
  if (!sizes.empty()) {
    Result<std::vector<double>> s = validate_sizes_parse(sizes);
    if (!s) return fail(rank, s.error(), 2);
    options.sizes = *s;
  }
  std::unique_ptr<MpiBackend> b = std::make_unique<MpiBackend>();
#ifdef TOPOPLAN_HAVE_NCCL
  if (backend == "nccl") {
    if (rank >= plan->world) return fail(rank, plan->source + " places " + std::to_string(plan->world) + " ranks; this run has more", 2);
    const Result<bool> usable = NcclBackend::gpu_usable(plan->gpu_of_rank[static_cast<size_t>(rank)]);
    // Every rank checks its GPU before any joins NCCL, so one that cannot leaves none waiting; the
    // lowest such rank says why.
    const int mine = usable ? INT_MAX : rank;
    int first = INT_MAX;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first != INT_MAX) {
      if (rank == first) std::fprintf(stderr, "topoplan-validate: error: rank %d: %s\n", rank, usable.error().c_str());
      return 2;
    }
    b = NcclBackend::make(plan->gpu_of_rank[static_cast<size_t>(rank)]);
  }
#endif
  Result<ValidateRun> result = Error{""};
  {
    Watchdog dog(timeout_s, rank);
    result = validate_run(*b, *plan, *selected, options, [&](const std::string& s) { dog.stage(s); });
  }
  if (!result) return fail(rank, result.error(), 2);
  if (rank == 0) {
    std::cout << validate_table(*result);
    if (!json_path.empty()) {
      std::ofstream f(json_path);
      f << validate_to_json(*result).dump(2) << "\n";
      if (!f) return fail(rank, json_path + ": cannot write", 2);
    }
  }
  return result->wrong() ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int code = 70;
  try {
    code = run(argc, argv, rank);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "topoplan-validate: rank %d: internal error: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 70);
  }
  MPI_Finalize();
  return code;
}

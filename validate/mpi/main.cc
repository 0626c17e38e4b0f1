// topoplan-validate: the plan's own collectives run on the machines, one rank per planned GPU,
// launched in the plan's order (mpirun with the plan's rankfile, or srun). Writes the results as
// JSON (--json) and prints nccl-tests' table on rank 0; --nccl-tests runs one collective on one
// group in a size sweep and prints exactly what nccl-tests prints. Exit 0 when every result is
// right, 1 when an element is wrong, 2 on bad input, 3 when a step timed out (every rank stops;
// rank 0 says which ranks fell behind, in the JSON too).
#include <CLI/CLI.hpp>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <mutex>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include "base/json_fields.h"
#include "validate/harness.h"
#include "validate/mpi/mpi_backend.h"
#include "validate/mpi/progress.h"
#ifdef TOPOPLAN_HAVE_NCCL
#include "validate/nccl/nccl_backend.h"
#endif

using namespace topoplan;

namespace {

// Set by SIGTERM or SIGINT: the launcher stops the job (another rank exited, or it was cancelled).
// Open MPI 4.1 stops a job with SIGCONT, then odls_base_sigkill_timeout (1 s) later SIGTERM, then
// SIGKILL some 50 ms after that: rank 0 writes its report on SIGCONT already (the run's results
// replace it if the run goes on: SIGCONT also ends a shell's Ctrl-Z), and again on SIGTERM. The
// handler wakes the watchdog through a pipe so that neither waits for its next look at the clock.
volatile std::sig_atomic_t g_stopped = 0;
volatile std::sig_atomic_t g_continued = 0;
volatile std::sig_atomic_t g_wake_fd = -1;
extern "C" void on_signal(int signal) {
  (signal == SIGCONT ? g_continued : g_stopped) = 1;
  if (g_wake_fd >= 0) {
    const int saved = errno;
    [[maybe_unused]] const ssize_t n = ::write(g_wake_fd, "s", 1);
    errno = saved;
  }
}

// Stops the job when a stage outlives the timeout: a hung peer would otherwise hold every rank in
// its collective forever. Also reports when the launcher stops the job, as it does when a rank
// dies. Rank 0 says which ranks fell behind (on_failure: "timeout" or "stopped"; `final` false
// when it only writes the report ahead of a stop) and exits; the others say where they were and
// give rank 0 a moment before they exit.
class Watchdog {
 public:
  using OnFailure = std::function<void(const std::string& reason, const std::string& stage, bool final)>;
  Watchdog(double timeout_s, int rank, OnFailure on_failure)
      : timeout_s_(timeout_s), rank_(rank), on_failure_(std::move(on_failure)) {
    if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) wake_[0] = wake_[1] = -1;  // then the watchdog only polls
    g_wake_fd = wake_[1];
    for (int signal : kSignals) std::signal(signal, on_signal);
    thread_ = std::thread([this] { watch(); });
  }
  ~Watchdog() {
    for (int signal : kSignals) std::signal(signal, SIG_DFL);
    g_wake_fd = -1;
    {
      std::lock_guard<std::mutex> lock(m_);
      done_ = true;
    }
    if (wake_[1] >= 0) [[maybe_unused]]
      const ssize_t n = ::write(wake_[1], "d", 1);
    thread_.join();
    for (int fd : wake_)
      if (fd >= 0) ::close(fd);
  }
  void stage(const std::string& what) {
    std::lock_guard<std::mutex> lock(m_);
    stage_ = what;
    since_ = std::chrono::steady_clock::now();
  }

 private:
  static constexpr int kSignals[] = {SIGTERM, SIGINT, SIGCONT};
  // Until the pipe has a byte (a signal, or done) or 100 ms pass.
  void sleep_on_pipe() {
    if (wake_[0] < 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      return;
    }
    pollfd p{wake_[0], POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) return;
    char buffer[64];
    while (::read(wake_[0], buffer, sizeof buffer) > 0) {}
  }
  void watch() {
    for (;;) {
      sleep_on_pipe();
      std::unique_lock<std::mutex> lock(m_);
      if (done_) return;
      if (g_continued) {
        g_continued = 0;
        if (rank_ == 0 && !g_stopped) on_failure_("stopped", stage_, false);
      }
      const double held = std::chrono::duration<double>(std::chrono::steady_clock::now() - since_).count();
      if (held <= timeout_s_ && !g_stopped) continue;
      const bool stopped = g_stopped;
      if (rank_ == 0) {
        on_failure_(stopped ? "stopped" : "timeout", stage_, true);
      } else {
        if (stopped)
          std::fprintf(stderr, "topoplan-validate: rank %d: stopped by the launcher in %s\n", rank_, stage_.c_str());
        else
          std::fprintf(stderr, "topoplan-validate: rank %d: timed out after %.0f s in %s; stopping\n", rank_,
                       timeout_s_, stage_.c_str());
        std::fflush(stderr);
        if (!stopped) {
          lock.unlock();
          std::this_thread::sleep_for(std::chrono::seconds(kGraceS));
        }
      }
      // The launcher sees the exit and stops the other ranks.
      std::_Exit(3);
    }
  }
  static constexpr int kGraceS = 3;  // for rank 0 to report first
  double timeout_s_;
  int rank_;
  OnFailure on_failure_;
  std::mutex m_;
  int wake_[2] = {-1, -1};
  bool done_ = false;
  std::string stage_ = "starting";
  std::chrono::steady_clock::time_point since_ = std::chrono::steady_clock::now();
  std::thread thread_;
};

// The kind a stage text is about ("tp group 1: all_gather of 1 MiB" -> "tp"), if it names one.
std::string stage_kind(const std::string& stage) { return stage.substr(0, stage.find_first_of(" :")); }

// What rank 0 knows when a step times out: which ranks fell behind, where, and in which group of
// the kind the others are running. Printed, and written as the JSON's "failure".
nlohmann::json failure_report(const ValidatePlan& plan, const std::vector<Progress::Where>& where,
                              const std::string& reason, double timeout_s, const std::string& mine) {
  const bool stopped = reason == "stopped";
  const std::vector<int> behind = stopped ? Progress::stopped(where) : Progress::behind(where);
  nlohmann::json ranks = nlohmann::json::array(), failed = nlohmann::json::array();
  for (size_t r = 0; r < where.size(); ++r)
    ranks.push_back({{"rank", r}, {"stage", where[r].seq < 0 ? "no report" : where[r].stage}});
  // The stage the ranks ahead are in.
  std::string ahead = mine;
  for (const Progress::Where& w : where)
    if (std::find(behind.begin(), behind.end(), &w - where.data()) == behind.end()) ahead = w.stage;
  std::string text;
  for (int r : behind) {
    nlohmann::json f = {{"rank", r}, {"last_stage", where[static_cast<size_t>(r)].stage}};
    if (!where[static_cast<size_t>(r)].exited.empty()) f["exited"] = where[static_cast<size_t>(r)].exited;
    for (const ValidateKind& k : plan.kinds)
      if (k.kind == stage_kind(ahead))
        for (size_t g = 0; g < k.groups.size(); ++g)
          if (std::find(k.groups[g].begin(), k.groups[g].end(), r) != k.groups[g].end())
            f["group"] = {{"kind", k.kind}, {"index", g}};
    text += (text.empty() ? "" : ", ") + std::to_string(r);
    if (f.contains("group"))
      text += " (" + f["group"]["kind"].get<std::string>() + " group " +
              std::to_string(f["group"]["index"].get<size_t>()) + ")";
    failed.push_back(std::move(f));
  }
  const bool exited = !behind.empty() && !where[static_cast<size_t>(behind.front())].exited.empty();
  const std::string message =
      (stopped ? "the launcher stopped the job (a rank exited, or the job was cancelled): " : "") +
      (behind.empty()
           ? "every rank is in '" + ahead + "': " +
                 (stopped ? "no rank fell behind"
                          : "a collective did not finish on any rank (a rank inside it stopped, or a link stalled)")
           : std::string(behind.size() == 1 ? "rank " : "ranks ") + text +
                 (exited    ? " exited (" + where[static_cast<size_t>(behind.front())].exited + ") after '"
                  : stopped ? " last reported '"
                            : " stopped answering after '") +
                 where[static_cast<size_t>(behind.front())].stage + "' while the others wait in '" + ahead + "'");
  nlohmann::json out = {{"reason", reason},
                        {"message", message},
                        {"waiting_in", ahead},
                        {"failed", std::move(failed)},
                        {"ranks", std::move(ranks)}};
  if (!stopped) out["timeout_s"] = timeout_s;
  return out;
}

int fail(int rank, const std::string& message, int code) {
  if (rank == 0) std::fprintf(stderr, "topoplan-validate: error: %s\n", message.c_str());
  return code;
}

int run(int argc, char** argv, int rank, bool threaded) {
  CLI::App app{"topoplan-validate: run a plan's collectives on its machines, check and time them"};
  std::string plan_path, backend = "mpi", kinds, sizes, json_path, sweep_op, group, min_bytes = "8", max_bytes = "128M";
  int iters = 20, warmup = 5, factor = 2, stall = -1, die = -1;
  int timeout_s = 300;
  ValidateOptions options;
  app.add_option("--plan", plan_path, "plan file (topoplan plan --emit json)")->required();
  app.add_option("--backend", backend, "mpi (host buffers, any machine) or nccl (one GPU per rank, the plan's)");
  app.add_option("--kinds", kinds, "group kinds to run, e.g. tp,dp (default: every kind the plan has)");
  app.add_option("--sizes", sizes, "sizes to run instead of the planned ones, e.g. 1KiB,1MiB,64MiB");
  app.add_option("-n,--iters", iters, "timed iterations per size")->check(CLI::Range(1, 100000));
  app.add_option("-w,--warmup", warmup, "untimed iterations first")->check(CLI::Range(0, 100000));
  app.add_option("--timeout-s", timeout_s, "seconds any one step may take before every rank stops")
      ->check(CLI::Range(1, 86400));
  app.add_option("--json", json_path, "write the results as JSON (rank 0)");
  app.add_option(
         "--rounds", options.rounds,
         "split the timed iterations into this many rounds and report the median round, robust where the OS or other "
         "jobs interrupt some (default 1: the mean, as nccl-tests)")
      ->check(CLI::Range(1, 1000));
  app.add_flag(
      "--alone", options.alone,
      "also run each group by itself, the others idle, so compare can set the slowdown of running together beside the "
      "model's contention (the kind's group count times as long)");
  app.add_option(
      "--nccl-tests", sweep_op,
      "nccl-tests mode: one collective (all_reduce, all_gather, reduce_scatter, alltoall, sendrecv) in a size "
      "sweep on one group, printed exactly as nccl-tests prints it");
  app.add_option("--group", group,
                 "nccl-tests mode: the group, KIND:INDEX as explain --group names it (default: every rank)");
  app.add_option("-b,--minbytes", min_bytes,
                 "nccl-tests mode: smallest size (8, 1K, 64KiB; K, M, G are binary as in nccl-tests)");
  app.add_option("-e,--maxbytes", max_bytes, "nccl-tests mode: largest size");
  app.add_option("-f,--stepfactor", factor, "nccl-tests mode: each size this many times the last")
      ->check(CLI::Range(2, 1024));
  app.add_option("--inject-stall", stall,
                 "check the failure path: this rank stops (SIGSTOP) at its first timed collective")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--inject-exit", die, "check the failure path: this rank exits (code 9) at its first timed collective")
      ->check(CLI::NonNegativeNumber);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      if (rank == 0) std::cout << app.help();
      return 0;
    }
    return fail(rank, e.what(), 2);
  }
  if (backend != "mpi" && backend != "nccl")
    return fail(rank, "--backend: expected mpi or nccl, got '" + backend + "'", 2);
#ifndef TOPOPLAN_HAVE_NCCL
  if (backend == "nccl")
    return fail(rank, "--backend nccl: this build has no NCCL backend (CUDA and NCCL were not found when it was built)",
                2);
#endif
  Result<ValidatePlan> plan = validate_plan_read(plan_path);
  if (!plan) return fail(rank, plan.error(), 2);
  options.iters = iters;
  options.warmup = warmup;
  std::vector<ValidateKind> selected;
  SweepOptions sweep;
  if (sweep_op.empty()) {
    for (const auto& [flag, value] : {std::pair{"--group", group.empty()},
                                      {"--minbytes", app.count("-b") == 0},
                                      {"--maxbytes", app.count("-e") == 0},
                                      {"--stepfactor", app.count("-f") == 0}})
      if (!value) return fail(rank, std::string(flag) + " belongs to --nccl-tests mode; give --nccl-tests OP too", 2);
    Result<std::vector<ValidateKind>> k = validate_kinds_select(*plan, kinds);
    if (!k) return fail(rank, k.error(), 2);
    selected = std::move(*k);
    if (!sizes.empty()) {
      Result<std::vector<double>> s = validate_sizes_parse(sizes);
      if (!s) return fail(rank, "--sizes: " + s.error(), 2);
      options.sizes = *s;
    }
  } else {
    if (!kinds.empty() || !sizes.empty() || options.alone || options.rounds != 1)
      return fail(rank,
                  "--nccl-tests runs one group (--group) over -b to -e, timed as nccl-tests does: not --kinds, "
                  "--sizes, --alone or --rounds",
                  2);
    Result<CollectiveOp> op = parse_collective_op(sweep_op);
    if (!op) return fail(rank, "--nccl-tests: " + op.error(), 2);
    if (*op == CollectiveOp::broadcast || *op == CollectiveOp::reduce)
      return fail(rank,
                  "--nccl-tests: " + sweep_op +
                      " is not a collective training runs (all_reduce, all_gather, reduce_scatter, alltoall, sendrecv)",
                  2);
    sweep.op = *op;
    Result<double> lo = validate_size_parse(min_bytes), hi = validate_size_parse(max_bytes);
    if (!lo) return fail(rank, "--minbytes: " + lo.error(), 2);
    if (!hi) return fail(rank, "--maxbytes: " + hi.error(), 2);
    if (*hi < *lo) return fail(rank, "--maxbytes " + max_bytes + " is below --minbytes " + min_bytes, 2);
    sweep.min_bytes = *lo;
    sweep.max_bytes = *hi;
    sweep.factor = factor;
    sweep.iters = iters;
    sweep.warmup = warmup;
    if (!group.empty()) {
      const size_t colon = group.find(':');
      sweep.kind = group.substr(0, colon);
      if (colon != std::string::npos) {
        const std::string index = group.substr(colon + 1);
        if (index.empty() || index.size() > 9 || index.find_first_not_of("0123456789") != std::string::npos)
          return fail(rank, "--group " + group + ": expected KIND:INDEX, e.g. tp:0", 2);
        sweep.index = std::stoi(index);
      }
    }
  }
  std::unique_ptr<MpiBackend> b = std::make_unique<MpiBackend>();
#ifdef TOPOPLAN_HAVE_NCCL
  if (backend == "nccl") {
    if (rank >= plan->world)
      return fail(rank, plan->source + " places " + std::to_string(plan->world) + " ranks; this run has more", 2);
    const Result<void> usable = NcclBackend::gpu_usable(plan->gpu_of_rank[static_cast<size_t>(rank)]);
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
  // A failure's JSON: what the plan is, no results, and why.
  auto write_json = [&](const nlohmann::json& doc) -> int {
    if (json_path.empty()) return 0;
    if (Result<void> w = text_write_file(json_path, doc.dump(2) + "\n"); !w) return fail(rank, w.error(), 2);
    return 0;
  };
  Progress progress(threaded);
  bool early_report = false;  // written on SIGCONT: the results replace it, an error removes it
  auto error_out = [&](const std::string& message) {
    std::error_code ignored;
    if (early_report && rank == 0 && !json_path.empty()) std::filesystem::remove(json_path, ignored);
    return fail(rank, message, 2);
  };
  auto on_failure = [&](const std::string& reason, const std::string& mine, bool final) {
    const nlohmann::json report = failure_report(*plan, progress.where(), reason, timeout_s, mine);
    ValidateRun empty{b->name(), plan->source, plan->job, plan->world, {}};
    nlohmann::json doc = validate_to_json(empty);
    doc["failure"] = report;
    // A launcher's SIGKILL may follow its SIGTERM within milliseconds: what is not out yet first.
    auto say = [&] { std::fprintf(stderr, "topoplan-validate: %s\n", report["message"].get<std::string>().c_str()); };
    if (final && early_report) say();
    write_json(doc);
    if (final && !early_report) say();
    early_report = !final;
  };
  bool stalled = false;
  auto stage = [&](Watchdog& dog, const std::string& s) {
    // --inject-stall: as a rank whose process hangs between steps (a stopped or swapped-out host).
    if ((rank == stall || rank == die) && !stalled && s.find(" of ") != std::string::npos) {
      stalled = true;
      if (rank == die) {  // as a rank that gives up between steps
        progress.exiting("--inject-exit");
        std::_Exit(9);
      }
      std::raise(SIGSTOP);
    }
    progress.enter(s);
    dog.stage(s);
  };
  if (!sweep_op.empty()) {
    Result<SweepResult> result = Error{""};
    {
      Watchdog dog(timeout_s, rank, on_failure);
      result = validate_sweep(*b, *plan, sweep, [&](const std::string& s) { stage(dog, s); });
    }
    if (!result) return error_out(result.error());
    if (rank == 0) {
      std::cout << nccl_tests_format(result->table);
      if (int rc = write_json(validate_to_json(result->run)); rc) return rc;
    }
    return result->table.out_of_bounds ? 1 : 0;
  }
  Result<ValidateRun> result = Error{""};
  {
    Watchdog dog(timeout_s, rank, on_failure);
    result = validate_run(*b, *plan, selected, options, [&](const std::string& s) { stage(dog, s); });
  }
  if (!result) return error_out(result.error());
  if (rank == 0) {
    std::cout << validate_table(*result);
    if (int rc = write_json(validate_to_json(*result)); rc) return rc;
  }
  return result->wrong() ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Threads: rank 0's watchdog reads the other ranks' progress while its main thread waits.
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int code = 70;
  try {
    code = run(argc, argv, rank, provided == MPI_THREAD_MULTIPLE);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "topoplan-validate: rank %d: internal error: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 70);
  }
  MPI_Finalize();
  return code;
}

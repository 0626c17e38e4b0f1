// nccl-tests' text output (NVIDIA/nccl-tests: all_reduce_perf and the others), read from any
// version since 2.0 and written as 2.19.6 prints it, so measurements taken with the tool everyone
// already runs can be compared with a plan, and topoplan's own runs read like nccl-tests'.
// The format's history, by the nccl-tests version that changed it:
//   2.0    "#   Rank  0 Pid 123 on host device  0 [0x18] NAME"; columns per collective: all_gather,
//          sendrecv and hypercube have no redop column, alltoall prints it blank; "error" is the
//          largest difference from the expected values (%5.0le: "0e+00"), not a count
//   2.13.0 one header for all: size count type redop root, "#wrong" counts wrong elements;
//          all_gather's and alltoall's redop blank until 2.13.4 ("none"); sendrecv prints -o's op
//   2.13.4 "Group" in the device lines; 2.14.1 the bus id as "[0000:18:00]"
//   2.16.7 "# Collective test starting: PROGRAM" and "# Collective test concluded: PROGRAM"
//   2.17.3 times and rates through getFloatStr (so "%.1e" past 7 digits)
//   2.17.4 "# nccl-tests version"; 2.17.6 -S timestamps; 2.18.2 "unalign:"
//   2.19.2 -I per-iteration columns; 2.19.6 getFloatStr never wider than its column
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "cost/nccl_tuning.h"

namespace topoplan {

// One "#  Rank" line: a GPU of the run.
struct NcclTestsRank {
  int rank = 0, group = 0;  // group: the communicator (NCCL_TESTS_SPLIT); 0 before 2.13.4
  long pid = 0;
  std::string host;
  int device = 0;
  std::string bus_id;       // "0000:18:00", or "0x18" before 2.14.1
  std::string device_name;  // "NVIDIA H100 80GB HBM3"
};

// -I 1 (2.19.2 on): over the timed iterations, the slowest process's time per iteration.
struct NcclTestsIterStats {
  double min_us = 0, max_us = 0, p99_us = 0, cv_pct = 0;
};

struct NcclTestsRow {
  double bytes = 0;   // nccl-tests' size: the larger of the send and receive buffers
  size_t count = 0;   // elements per rank as the collective takes them
  std::string type;   // float, bfloat16 ...
  std::string redop;  // sum ..., none; "" where the column is blank (old alltoall) or absent
  int root = -1;      // -1 unless rooted (broadcast, reduce, gather, scatter)
  double time_us = 0, algbw_GBps = 0, busbw_GBps = 0;  // out-of-place
  std::optional<long> wrong;                           // nullopt: N/A (-c 0), or an old "error" column that was not 0
  double in_place_time_us = 0, in_place_algbw_GBps = 0, in_place_busbw_GBps = 0;
  std::optional<long> in_place_wrong;
  std::optional<NcclTestsIterStats> iter, in_place_iter;  // -I 1
  std::string timestamp;                                  // -S 1: "2026-07-09 15:52:13"
  int line = 0;                                           // in the source
};

// One run of one program. Defaults are nccl-tests 2.19's (src/common.cu) for runs built here.
struct NcclTestsRun {
  std::string source;
  int line = 0;                                // where the run starts
  std::string program;                         // "all_reduce_perf" when the log says (2.16.7 on)
  CollectiveOp op = CollectiveOp::all_reduce;  // from the program, else the file name, else the rows
  std::string version;                         // "2.19.6" when the log says (2.17.4 on)
  int nccl_headers = 0, nccl_library = 0;      // NCCL_VERSION_CODE, ncclGetVersion: 22903 is 2.29.3
  // "# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 1 ..."
  int threads = 1, gpus_per_proc = 1, warmup_iters = 1, iters = 20, agg_iters = 1, validation = 1, graph = 0,
      unalign = 0;
  double min_bytes = 32 << 20, max_bytes = 32 << 20;
  int step_factor = 1;               // -f; 1 when the sizes step by step_bytes
  double step_bytes = 1 << 20;       // -i
  bool cputime = false;              // -C 1: times are the CPU's ("cputime" columns)
  int per_iter_skip = 0;             // -K: iterations left out of -I's summary
  std::vector<NcclTestsRank> ranks;  // every rank of the run, all communicators
  std::vector<NcclTestsRow> rows;    // rows of size 0 (-b 0) left out
  long out_of_bounds = 0;            // footer
  double avg_busbw_GBps = 0;         // footer: the mean of every busbw, both places
};

struct NcclTestsLog {
  std::vector<NcclTestsRun> runs;
  std::vector<std::string> notes;  // "FILE:LINE: ..." for each run left out, and why
};

// Every run in a log: several may be concatenated, and NCCL INFO lines, launcher output and other
// noise around and inside them are skipped. Runs topoplan does not model (broadcast, reduce,
// gather, scatter, alltoallv, hypercube) and tables without rows are left out with a note; an error
// when nothing usable is left, and for any malformed line, naming the source and line.
Result<NcclTestsLog> nccl_tests_log_parse(const std::string& text, const std::string& source);
Result<NcclTestsLog> nccl_tests_log_read(const std::string& path);

// The run as nccl-tests 2.19.6 prints it, byte for byte: the version line (when known), the
// program and parameters, the devices, the column header, the rows, the footer.
std::string nccl_tests_format(const NcclTestsRun& run);

// "all_reduce_perf" ... "sendrecv_perf"; broadcast_perf and reduce_perf for those.
std::string nccl_tests_program(CollectiveOp op);
// Ranks in rank 0's communicator (the rank count behind count and busbw); 0 without device lines.
int nccl_tests_comm_ranks(const NcclTestsRun& run);
// Bytes per element of nccl-tests' type names (src/common.cu test_typenames), nullopt if unknown.
std::optional<int> nccl_tests_type_bytes(const std::string& type);

}  // namespace topoplan

#include "validate/nccl_tests_format.h"

#include <doctest/doctest.h>

#include <set>
#include <sstream>

#include "tests/support.h"

namespace topoplan {
namespace {

std::string log_path(const std::string& name) {
  return (test::source_dir() / "tests/validate/nccl-tests" / name).string();
}

NcclTestsLog read_log(const std::string& name) {
  Result<NcclTestsLog> log = nccl_tests_log_read(log_path(name));
  REQUIRE_MESSAGE(log.ok(), (log ? "" : log.error()));
  return *log;
}

std::string error_of(const std::string& text, const std::string& source = "x.log") {
  Result<NcclTestsLog> log = nccl_tests_log_parse(text, source);
  return log ? "" : log.error();
}

// nccl-tests' own lines of a log: comments, rows (right-aligned, so they start with a space) and
// the empty line it ends with; NCCL INFO lines and the launcher's output dropped.
std::string tests_lines(const std::string& text) {
  std::istringstream in(text);
  std::string out, line;
  while (std::getline(in, line))
    if (line.empty() || line[0] == '#' || line[0] == ' ') out += line + "\n";
  return out;
}

// What nccl_tests_format writes reads back as the same rows.
void check_round_trip(const NcclTestsRun& run) {
  const std::string text = nccl_tests_format(run);
  Result<NcclTestsLog> back = nccl_tests_log_parse(text, "formatted.log");
  REQUIRE_MESSAGE(back.ok(), (back ? "" : back.error()));
  REQUIRE(back->runs.size() == 1);
  const NcclTestsRun& b = back->runs[0];
  CHECK(b.op == run.op);
  CHECK(b.ranks.size() == run.ranks.size());
  REQUIRE(b.rows.size() == run.rows.size());
  for (size_t i = 0; i < run.rows.size(); ++i) {
    const NcclTestsRow &x = run.rows[i], &y = b.rows[i];
    CAPTURE(x.line);
    CHECK(y.bytes == x.bytes);
    CHECK(y.count == x.count);
    CHECK(y.type == x.type);
    CHECK(y.redop == x.redop);
    CHECK(y.root == x.root);
    CHECK(y.time_us == x.time_us);
    CHECK(y.algbw_GBps == x.algbw_GBps);
    CHECK(y.busbw_GBps == x.busbw_GBps);
    CHECK(y.wrong == x.wrong);
    CHECK(y.in_place_time_us == x.in_place_time_us);
    CHECK(y.in_place_busbw_GBps == x.in_place_busbw_GBps);
    CHECK(y.in_place_wrong == x.in_place_wrong);
    CHECK(y.iter.has_value() == x.iter.has_value());
    CHECK(y.timestamp == x.timestamp);
  }
  CHECK(b.avg_busbw_GBps == run.avg_busbw_GBps);
  CHECK(nccl_tests_format(b) == text);
}

// A table as 2.13 to 2.17.2 print it, around the given rows.
std::string table(const std::string& rows) {
  return "# nThread 1 nGpus 4 minBytes 1048576 maxBytes 4194304 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
         "validation: 1 graph: 0\n"
         "#\n"
         "# Using devices\n"
         "#  Rank  0 Group  0 Pid   1001 on     node01 device  0 [0000:18:00] NVIDIA H100 80GB HBM3\n"
         "#  Rank  1 Group  0 Pid   1001 on     node01 device  1 [0000:2a:00] NVIDIA H100 80GB HBM3\n"
         "#  Rank  2 Group  0 Pid   1001 on     node01 device  2 [0000:3a:00] NVIDIA H100 80GB HBM3\n"
         "#  Rank  3 Group  0 Pid   1001 on     node01 device  3 [0000:5d:00] NVIDIA H100 80GB HBM3\n"
         "#\n"
         "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
         "busbw #wrong\n"
         "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  "
         "(GB/s)       \n" +
         rows + "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 30.5 \n#\n";
}
// Line 11 of table(): its first row. All-reduce on 4 ranks: busbw = algbw * 1.5.
const std::string kRow1 =
    "     1048576        262144     float     sum      -1    52.10   20.13   30.19      0    51.80   20.24   30.36     "
    " 0\n";
const std::string kRow2 =
    "     2097152        524288     float     sum      -1    80.03   26.20   39.31      0    79.66   26.33   39.49     "
    " 0\n";

}  // namespace

TEST_CASE(
    "nccl-tests format: all_reduce_perf on 8 H100 (2.19.6, NCCL INFO lines between) reads and prints back byte for "
    "byte") {
  const NcclTestsLog log = read_log("all_reduce_perf-8xh100.log");
  CHECK(log.notes.empty());
  REQUIRE(log.runs.size() == 1);
  const NcclTestsRun& r = log.runs[0];
  CHECK(r.line == 2);
  CHECK(r.program == "all_reduce_perf");
  CHECK(r.op == CollectiveOp::all_reduce);
  CHECK(r.version == "2.19.6");
  CHECK(r.nccl_headers == 22903);
  CHECK(r.nccl_library == 22903);
  CHECK(r.threads == 1);
  CHECK(r.gpus_per_proc == 8);
  CHECK(r.min_bytes == 8);
  CHECK(r.max_bytes == 8589934592.0);
  CHECK(r.step_factor == 2);
  CHECK(r.warmup_iters == 1);
  CHECK(r.iters == 20);
  CHECK(r.validation == 1);
  CHECK(r.unalign == 0);
  REQUIRE(r.ranks.size() == 8);
  CHECK(nccl_tests_comm_ranks(r) == 8);
  for (const NcclTestsRank& k : r.ranks) {
    CHECK(k.host == "dgx-h100-07");
    CHECK(k.pid == 41872);
    CHECK(k.device_name == "NVIDIA H100 80GB HBM3");
  }
  CHECK(r.ranks[0].bus_id == "0000:18:00");
  CHECK(r.ranks[7].bus_id == "0000:db:00");
  CHECK(r.ranks[7].device == 7);
  REQUIRE(r.rows.size() == 31);  // 8 B to 8 GiB
  const NcclTestsRow &first = r.rows.front(), &last = r.rows.back();
  CHECK(first.line == 40);
  CHECK(first.bytes == 8);
  CHECK(first.count == 2);
  CHECK(first.type == "float");
  CHECK(first.redop == "sum");
  CHECK(first.root == -1);
  CHECK(first.time_us == doctest::Approx(27.60));
  CHECK(first.in_place_time_us == doctest::Approx(28.79));
  CHECK(first.wrong == 0);
  CHECK(last.line == 72);
  CHECK(last.bytes == 8589934592.0);
  CHECK(last.count == 2147483648);
  CHECK(last.time_us == doctest::Approx(31540.3));  // getFloatStr drops a decimal past 7 characters
  CHECK(last.algbw_GBps == doctest::Approx(272.35));
  CHECK(last.busbw_GBps == doctest::Approx(476.61));
  CHECK(last.busbw_GBps ==
        doctest::Approx(last.algbw_GBps * nccl_busbw_factor(CollectiveOp::all_reduce, 8)).epsilon(0.001));
  CHECK(last.in_place_busbw_GBps == doctest::Approx(474.81));
  CHECK(r.out_of_bounds == 0);
  CHECK(r.avg_busbw_GBps == doctest::Approx(147.901));

  const std::string text = test::read_file(log_path("all_reduce_perf-8xh100.log"));
  CHECK(nccl_tests_format(r) == tests_lines(text));
  check_round_trip(r);
}

TEST_CASE(
    "nccl-tests format: all_gather_perf on 2 nodes in 2.11's columns (no redop or root, an error column), op from the "
    "file name") {
  const NcclTestsLog log = read_log("all_gather_perf-2node.log");
  REQUIRE(log.runs.size() == 1);
  const NcclTestsRun& r = log.runs[0];
  CHECK(r.line == 2);
  CHECK(r.program.empty());
  CHECK(r.version.empty());
  CHECK(r.op == CollectiveOp::all_gather);
  CHECK(r.warmup_iters == 5);
  CHECK(r.step_factor == 2);
  REQUIRE(r.ranks.size() == 16);
  CHECK(nccl_tests_comm_ranks(r) == 16);
  std::set<std::string> hosts;
  for (const NcclTestsRank& k : r.ranks) hosts.insert(k.host);
  CHECK(hosts == std::set<std::string>{"gpu-a01", "gpu-a02"});
  CHECK(r.ranks[8].host == "gpu-a02");
  CHECK(r.ranks[8].rank == 8);
  CHECK(r.ranks[8].device == 0);
  CHECK(r.ranks[8].pid == 18734);
  CHECK(r.ranks[8].group == 0);
  CHECK(r.ranks[8].bus_id == "0x07");
  CHECK(r.ranks[8].device_name == "A100-SXM4-80GB");
  REQUIRE(r.rows.size() == 11);
  CHECK(r.rows[0].bytes == 1048576);
  CHECK(r.rows[0].count == 16384);  // per rank: 1 MiB / 4 B / 16 ranks
  CHECK(r.rows[0].redop.empty());
  CHECK(r.rows[0].root == -1);
  CHECK(r.rows[0].time_us == doctest::Approx(132.4));
  CHECK(r.rows[0].algbw_GBps == doctest::Approx(7.92));
  CHECK(r.rows[0].wrong == 0);  // "0e+00": no difference, so nothing wrong
  CHECK(r.rows.back().bytes == 1073741824);
  CHECK(r.rows.back().time_us == 46238);
  CHECK(r.rows.back().busbw_GBps == doctest::Approx(21.77));
  CHECK(r.rows.back().in_place_busbw_GBps == doctest::Approx(21.57));
  CHECK(r.avg_busbw_GBps == doctest::Approx(16.2435));
  check_round_trip(r);

  // An error column that is not 0 holds a difference, not a count of wrong elements.
  std::string text = test::read_file(log_path("all_gather_perf-2node.log"));
  text.replace(text.find("0e+00"), 5, "2e-03");
  Result<NcclTestsLog> off = nccl_tests_log_parse(text, "all_gather_perf-2node.log");
  REQUIRE(off.ok());
  CHECK_FALSE(off->runs[0].rows[0].wrong.has_value());
  CHECK(off->runs[0].rows[0].in_place_wrong == 0);
}

TEST_CASE("nccl-tests format: reduce_scatter_perf with -I 1 keeps the per-iteration columns and prints them back") {
  const NcclTestsLog log = read_log("reduce_scatter_perf-I1.log");
  REQUIRE(log.runs.size() == 1);
  const NcclTestsRun& r = log.runs[0];
  CHECK(r.op == CollectiveOp::reduce_scatter);
  CHECK(r.ranks.size() == 8);
  CHECK(r.ranks[3].pid == 77313);
  REQUIRE(r.rows.size() == 9);
  const NcclTestsRow& first = r.rows.front();
  CHECK(first.count == 32768);  // per rank
  CHECK(first.time_us == doctest::Approx(27.80));
  CHECK(first.wrong == 0);
  REQUIRE(first.iter.has_value());
  CHECK(first.iter->min_us == doctest::Approx(26.75));
  CHECK(first.iter->max_us == doctest::Approx(30.31));
  CHECK(first.iter->p99_us == doctest::Approx(30.31));  // 20 iterations: the 99th percentile is the slowest
  CHECK(first.iter->cv_pct == doctest::Approx(2.10));
  REQUIRE(first.in_place_iter.has_value());
  CHECK(first.in_place_iter->cv_pct == doctest::Approx(3.19));
  CHECK(first.in_place_time_us == doctest::Approx(27.74));
  CHECK(first.in_place_wrong == 0);
  CHECK(r.rows.back().bytes == 268435456);
  CHECK(r.rows.back().busbw_GBps == doctest::Approx(321.80));
  CHECK(r.rows.back().in_place_iter->max_us == doctest::Approx(809.73));
  CHECK(nccl_tests_format(r) == tests_lines(test::read_file(log_path("reduce_scatter_perf-I1.log"))));
  check_round_trip(r);
}

TEST_CASE(
    "nccl-tests format: sendrecv_perf with -c 0 (N/A) and -S 1 timestamps; sendrecv told from all_reduce by its "
    "rates") {
  const NcclTestsLog log = read_log("sendrecv_perf-c0.log");
  REQUIRE(log.runs.size() == 1);
  const NcclTestsRun& r = log.runs[0];
  CHECK(r.op == CollectiveOp::sendrecv);
  CHECK(r.validation == 0);
  CHECK(r.step_factor == 8);
  REQUIRE(r.rows.size() == 9);
  for (const NcclTestsRow& row : r.rows) {
    CHECK_FALSE(row.wrong.has_value());
    CHECK_FALSE(row.in_place_wrong.has_value());
    CHECK(row.redop == "sum");  // sendrecv_perf prints -o's op, though nothing is reduced
  }
  CHECK(r.rows[0].timestamp == "2026-03-02 14:07:31");
  CHECK(r.rows.back().timestamp == "2026-03-02 14:07:39");
  CHECK(r.rows.back().time_us == doctest::Approx(1067.43));
  CHECK(r.rows.back().busbw_GBps == doctest::Approx(125.74));
  const std::string text = test::read_file(log_path("sendrecv_perf-c0.log"));
  CHECK(nccl_tests_format(r) == tests_lines(text));
  check_round_trip(r);

  // Without the program line and a telling name: "sum" and count = size / 4 fit all_reduce and
  // sendrecv, and busbw = algbw on 8 ranks is sendrecv's (all_reduce's would be 1.75 algbw).
  std::string bare = text;
  bare.erase(bare.find("# Collective test starting"), bare.find("# nThread") - bare.find("# Collective test starting"));
  bare.erase(bare.find("# Collective test concluded"));
  Result<NcclTestsLog> guessed = nccl_tests_log_parse(bare, "run-17.log");
  REQUIRE_MESSAGE(guessed.ok(), (guessed ? "" : guessed.error()));
  CHECK(guessed->runs[0].op == CollectiveOp::sendrecv);
  CHECK(guessed->runs[0].program.empty());
}

TEST_CASE("nccl-tests format: two runs in one file (2.16.7, srun lines between) are two runs") {
  const NcclTestsLog log = read_log("sweep-l40s.log");
  CHECK(log.notes.empty());
  REQUIRE(log.runs.size() == 2);
  CHECK(log.runs[0].op == CollectiveOp::all_reduce);
  CHECK(log.runs[0].line == 3);
  CHECK(log.runs[1].op == CollectiveOp::all_gather);
  CHECK(log.runs[1].line == 25);
  for (const NcclTestsRun& r : log.runs) {
    CHECK(r.ranks.size() == 4);
    CHECK(r.rows.size() == 4);
    CHECK(r.ranks[0].device_name == "NVIDIA L40S");
    check_round_trip(r);
  }
  CHECK(log.runs[0].rows[0].count == 262144);
  CHECK(log.runs[1].rows[0].count == 65536);  // per rank
  CHECK(log.runs[1].rows[0].redop == "none");
  CHECK(log.runs[0].rows.back().time_us == doctest::Approx(6451.9));  // 2.16's %7.1f from 100 us
  CHECK(log.runs[0].avg_busbw_GBps == doctest::Approx(12.338));
  CHECK(log.runs[1].avg_busbw_GBps == doctest::Approx(10.3015));
}

TEST_CASE("nccl-tests format: all_gather and alltoall cannot be told apart without a name") {
  const std::string text = test::read_file(log_path("nccl-run-0412.log"));
  Result<NcclTestsLog> log = nccl_tests_log_read(log_path("nccl-run-0412.log"));
  REQUIRE_FALSE(log.ok());
  CHECK(log.error().find("nccl-run-0412.log:1: cannot tell all_gather from alltoall") != std::string::npos);
  CHECK(log.error().find("all_gather_perf.log") != std::string::npos);
  Result<NcclTestsLog> named = nccl_tests_log_parse(text, "logs/alltoall_perf-16.log");
  REQUIRE(named.ok());
  CHECK(named->runs[0].op == CollectiveOp::alltoall);
  CHECK(named->runs[0].ranks[15].host == "h100-a02");
  CHECK(named->runs[0].ranks[15].bus_id == "0xdb");
  CHECK(nccl_tests_log_parse(text, "Alltoall-16.log")->runs[0].op == CollectiveOp::alltoall);
  CHECK(error_of(text, "alltoallv_perf.log").find("cannot tell") != std::string::npos);  // alltoallv is not alltoall
  // A name the rows contradict is an error, not a silent relabelling.
  CHECK(error_of(text, "all_reduce.log")
            .find("all_reduce.log:1: the file's name says all_reduce but its rows do not fit one") !=
        std::string::npos);
  CHECK(error_of(text, "reduce_scatter.log").find("name says reduce_scatter") != std::string::npos);
}

TEST_CASE("nccl-tests format: runs topoplan does not model are left out with a note, an error when nothing is left") {
  const std::string bcast = "# Collective test starting: broadcast_perf\n" +
                            table(
                                "     1048576        262144     float    none       0    40.10   26.15   26.15      0  "
                                "  39.90   26.28   26.28      0\n") +
                            "# Collective test concluded: broadcast_perf\n";
  const std::string reduce = table(
      "     1048576        262144     float     sum       0    40.10   26.15   26.15      0    39.90   26.28   26.28   "
      "   0\n");
  CHECK(error_of(bcast) ==
        "x.log:1: broadcast_perf left out: topoplan models all_reduce_perf, all_gather_perf, reduce_scatter_perf, "
        "alltoall_perf and sendrecv_perf; nothing else in the file to use");
  CHECK(error_of(reduce).find("x.log:1: left out: rows with a root (line 11)") == 0);

  Result<NcclTestsLog> mixed =
      nccl_tests_log_parse(bcast + "# Collective test starting: all_reduce_perf\n" + table(kRow1), "x.log");
  REQUIRE_MESSAGE(mixed.ok(), (mixed ? "" : mixed.error()));
  REQUIRE(mixed->runs.size() == 1);
  CHECK(mixed->runs[0].op == CollectiveOp::all_reduce);
  CHECK(mixed->runs[0].line == 17);
  REQUIRE(mixed->notes.size() == 1);
  CHECK(mixed->notes[0].find("x.log:1: broadcast_perf left out") == 0);
}

TEST_CASE("nccl-tests format: the op is inferred from redop, count and rank count when nothing names it") {
  // 4 ranks: all_reduce (sum, count = size / 4, busbw = 1.5 algbw), reduce_scatter (count * 4 = size / 4).
  Result<NcclTestsLog> ar = nccl_tests_log_parse(table(kRow1 + kRow2), "run.log");
  REQUIRE_MESSAGE(ar.ok(), (ar ? "" : ar.error()));
  CHECK(ar->runs[0].op == CollectiveOp::all_reduce);
  CHECK(ar->runs[0].rows.size() == 2);
  Result<NcclTestsLog> rs = nccl_tests_log_parse(table("     1048576         65536     float     sum      -1    20.10  "
                                                       " 52.17   39.13      0    20.20   51.91   38.93      0\n"),
                                                 "run.log");
  REQUIRE_MESSAGE(rs.ok(), (rs ? "" : rs.error()));
  CHECK(rs->runs[0].op == CollectiveOp::reduce_scatter);
  // Rates that fit no collective with these counts.
  CHECK(error_of(table("     1048576        262144     float     sum      -1    52.10   20.13   80.00      0    51.80  "
                       " 20.24   80.00      0\n"))
            .find("busbw/algbw at line 11 is 3.97") != std::string::npos);
  // A row of 2.0's alltoall, whose redop column is blank: read as a word short.
  Result<NcclTestsLog> blank = nccl_tests_log_parse(table("     1048576         65536     float      -1    33.10   "
                                                          "31.68   23.76      0    33.00   31.78   23.83      0\n"),
                                                    "alltoall.log");
  REQUIRE_MESSAGE(blank.ok(), (blank ? "" : blank.error()));
  CHECK(blank->runs[0].rows[0].redop.empty());
  CHECK(blank->runs[0].rows[0].time_us == doctest::Approx(33.10));
}

TEST_CASE("nccl-tests format: rows of size 0 are skipped; srun --label prefixes and CRLF are read through") {
  Result<NcclTestsLog> log = nccl_tests_log_parse(table("           0             0     float     sum      -1     0.12 "
                                                        "   0.00    0.00      0     0.10    0.00    0.00      0\n" +
                                                        kRow1),
                                                  "all_reduce.log");
  REQUIRE_MESSAGE(log.ok(), (log ? "" : log.error()));
  REQUIRE(log->runs[0].rows.size() == 1);
  CHECK(log->runs[0].rows[0].line == 12);

  std::string labelled;
  std::istringstream in(table(kRow1));
  for (std::string line; std::getline(in, line);) labelled += "0: " + line + "\r\n";
  Result<NcclTestsLog> srun = nccl_tests_log_parse(labelled, "all_reduce.log");
  REQUIRE_MESSAGE(srun.ok(), (srun ? "" : srun.error()));
  CHECK(srun->runs[0].ranks.size() == 4);
  CHECK(srun->runs[0].ranks[0].device_name == "NVIDIA H100 80GB HBM3");
  CHECK(srun->runs[0].rows[0].in_place_wrong == 0);
}

TEST_CASE("nccl-tests format: malformed input is an error naming the line and what was expected") {
  const std::string head = table("");
  // A truncated row.
  CHECK(error_of(table("     1048576        262144     float     sum      -1    52.10   20.13\n")) ==
        "x.log:11: expected 13 columns (size count type redop root time algbw busbw #wrong time algbw busbw #wrong), "
        "got 7: a "
        "truncated row?");
  // A row with words to spare.
  CHECK(error_of(table(kRow1.substr(0, kRow1.size() - 1) + " 17\n")).find("x.log:11: expected 13 columns") == 0);
  // A word in a numeric column.
  CHECK(error_of(table("     1048576        262144     float     sum      -1     fast   20.13   30.19      0    51.80  "
                       " 20.24   30.36      0\n")) ==
        "x.log:11: column 6 (time): expected a number from 0, got 'fast'");
  CHECK(error_of(table("     1048576        262144     float     sum      -1    52.10   20.13   30.19      x    51.80  "
                       " 20.24   30.36      0\n")) ==
        "x.log:11: column 9 (#wrong): expected a count of wrong elements or N/A, got 'x'");
  CHECK(error_of(table("     1048576        262144     float     sum      -1    52.10     inf   30.19      0    51.80  "
                       " 20.24   30.36      0\n")) ==
        "x.log:11: column 7 (algbw): expected a rate in GB/s from 0, got 'inf'");
  // A negative size, and a size that is not whole.
  CHECK(error_of(table("       -1024          -256     float     sum      -1    52.10   20.13   30.19      0    51.80  "
                       " 20.24   30.36      0\n")) ==
        "x.log:11: column 1 (size): expected a size in bytes, a whole number from 0 to 1e18, got '-1024'");
  CHECK(error_of(table("     1048576      262144.5     float     sum      -1    52.10   20.13   30.19      0    51.80  "
                       " 20.24   30.36      0\n"))
            .find("x.log:11: column 2 (count): expected a count of elements") == 0);
  // A row before any header, and after the table ended.
  CHECK(error_of("# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n" + kRow1)
            .find("x.log:2: a result row outside a table (expected the column header") == 0);
  CHECK(error_of(table(kRow1) + kRow2).find("x.log:15: a result row outside a table") == 0);
  // No rows at all, or only rows of size 0.
  CHECK(error_of(head).find("x.log:1: the table has no rows (expected rows like") == 0);
  CHECK(error_of(table("           0             0     float     sum      -1     0.12    0.00    0.00      0     0.10  "
                       "  0.00    0.00      0\n"))
            .find("x.log:1: the table has no rows") == 0);
  // No table.
  CHECK(error_of("").find("x.log: no nccl-tests table found (expected lines like '#       size") == 0);
  CHECK(error_of("dgx:1:1 [0] NCCL INFO Bootstrap: Using eth0\nSegmentation fault (core dumped)\n")
            .find("x.log: no nccl-tests table") == 0);
  // Device lines that do not parse, or repeat a rank.
  std::string bad_rank = head;
  bad_rank.replace(bad_rank.find("device  1"), 9, "device  X");
  CHECK(error_of(bad_rank).find(
            "x.log:5: expected a device line like '#  Rank  0 Group  0 Pid  12345 on node01 device  0 "
            "[0000:18:00] NVIDIA H100 80GB HBM3', got '#  Rank  1 Group") == 0);
  std::string twice = table(kRow1);
  twice.replace(twice.find("Rank  2"), 7, "Rank  1");
  CHECK(error_of(twice) == "x.log:6: rank 1 is listed twice (also at line 5)");
  // A parameter line with a word for a number, and a header short of its columns.
  CHECK(error_of("# nThread 1 nGpus many minBytes 8\n")
            .find("x.log:1: 'nGpus': expected a whole number from 0, got 'many'") == 0);
  CHECK(error_of("#  size  count  type  algbw\n")
            .find("x.log:1: a column header without size, count, type, time, algbw and busbw") == 0);
  // A file that is not there.
  CHECK(nccl_tests_log_read(log_path("missing.log")).error().find("missing.log") != std::string::npos);
}

TEST_CASE("nccl-tests format: inputs fuzz/nccl_tests_log found print back to what reads the same") {
  // A timestamp wider than writeTimestamp's column ran into the N/A before it; a NUL inside a
  // word printed as the end of the string.
  for (const char* name : {"fuzz-timestamp-past-its-column.log", "fuzz-nul-in-a-word.log"}) {
    CAPTURE(name);
    Result<NcclTestsLog> log = nccl_tests_log_parse(test::read_file(log_path(name)), "fuzz.log");
    REQUIRE_MESSAGE(log.ok(), (log ? "" : log.error()));
    for (const NcclTestsRun& run : log->runs) {
      const std::string text = nccl_tests_format(run);
      Result<NcclTestsLog> back = nccl_tests_log_parse(text, "fuzz.log");
      REQUIRE_MESSAGE(back.ok(), (back ? "" : back.error()));
      CHECK(back->runs[0].rows.size() == run.rows.size());
      CHECK(nccl_tests_format(back->runs[0]) == text);
    }
  }
}

TEST_CASE("nccl-tests format: a run built here prints as nccl-tests 2.19.6 would, getFloatStr's widths included") {
  NcclTestsRun run;
  run.op = CollectiveOp::all_gather;
  run.threads = 1;
  run.gpus_per_proc = 2;
  run.min_bytes = 1024;
  run.max_bytes = 1e9;
  run.step_factor = 2;
  run.ranks = {{0, 0, 7, "n1", 0, "0000:18:00", "NVIDIA H200"}, {1, 0, 7, "n1", 1, "0000:2a:00", "NVIDIA H200"}};
  NcclTestsRow row;
  row.bytes = 999999744;
  row.count = 124999968;
  row.type = "float";
  row.redop = "none";
  row.time_us = 12345678;    // past 7 characters: %.1e
  row.algbw_GBps = 1234567;  // past 6: %.0e
  row.busbw_GBps = 99999.4;
  row.wrong = 0;
  row.in_place_time_us = 99.999;
  row.in_place_algbw_GBps = 0.004;
  row.in_place_busbw_GBps = 123456;
  row.in_place_wrong = 1234567;
  run.rows = {row};
  run.avg_busbw_GBps = 61727.7;
  const std::string text = nccl_tests_format(run);
  CHECK(text ==
        "# Collective test starting: all_gather_perf\n"
        "# nThread 1 nGpus 2 minBytes 1024 maxBytes 1000000000 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 "
        "validation: 1 "
        "graph: 0 unalign: 0\n"
        "#\n"
        "# Using devices\n"
        "#  Rank  0 Group  0 Pid      7 on         n1 device  0 [0000:18:00] NVIDIA H200\n"
        "#  Rank  1 Group  0 Pid      7 on         n1 device  1 [0000:2a:00] NVIDIA H200\n"
        "#\n"
        "#                                                              out-of-place                       in-place    "
        "      \n"
        "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   "
        "busbw  #wrong \n"
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  "
        "(GB/s)         \n"
        "   999999744     124999968     float    none      -1  1.2e+07   1e+06   99999       0   100.00    0.00  "
        "123456  1.23457e+06\n"
        "# Out of bounds values : 0 OK\n"
        "# Avg bus bandwidth    : 61727.7 \n"
        "#\n"
        "# Collective test concluded: all_gather_perf\n"
        "#\n"
        "\n");
  Result<NcclTestsLog> back = nccl_tests_log_parse(text, "built.log");
  REQUIRE_MESSAGE(back.ok(), (back ? "" : back.error()));
  CHECK(back->runs[0].rows[0].time_us == 1.2e7);
  CHECK(back->runs[0].rows[0].in_place_wrong == 1234570);  // %6g keeps six digits
  CHECK(nccl_tests_program(CollectiveOp::reduce_scatter) == "reduce_scatter_perf");
  CHECK(nccl_tests_type_bytes("bfloat16") == 2);
  CHECK(nccl_tests_type_bytes("f8e4m3") == 1);
  CHECK(nccl_tests_type_bytes("uint64") == 8);
  CHECK_FALSE(nccl_tests_type_bytes("float128").has_value());
}

}  // namespace topoplan

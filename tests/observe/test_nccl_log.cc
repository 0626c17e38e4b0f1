#include "observe/nccl_log.h"

#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

namespace topoplan {
namespace {

// ---- a run printed with NCCL's own format strings ---------------------------------------------

// One process of a run, one GPU each (torchrun's layout).
struct Proc {
  std::string host;
  int pid = 0, dev = 0, rank = 0;
  long bus = 0;
};

[[gnu::format(printf, 1, 2)]] std::string fmt(const char* format, ...) {
  va_list args;
  va_start(args, format);
  char s[1024];
  std::vsnprintf(s, sizeof s, format, args);
  va_end(args);
  return s;
}

// src/debug.cc ncclDebugLog's INFO prefix: "%s:%d:%d [%d] NCCL INFO ".
std::string info(const Proc& p, const std::string& message) {
  return fmt("%s:%d:%d [%d] NCCL INFO ", p.host.c_str(), p.pid, p.pid, p.dev) + message + "\n";
}

// An 8-rank job on 2 hosts with NCCL 2.27.5: tp 4 inside each host, dp 2 across them. The world
// communicator is ncclCommInitRank's; tp (color rank / 4) and dp (color rank % 4) are split from it.
// Per step: each tp group all-gathers and reduce-scatters 2 layers x 2 micro-batches, each dp group
// all-reduces the gradients and the grad norm, and the world sends each micro-batch's activations
// from host 1 to host 2 and all-reduces the loss; before the first step, 3 parameter broadcasts and a
// barrier on the world.
struct Run {
  std::vector<Proc> procs;
  std::vector<std::vector<std::string>> lines;  // per process, in its order
  int steps = 3;
};

constexpr long kBus[] = {0x18000, 0x2a000, 0x3a000, 0x5d000};
constexpr unsigned long long kWorldId = 0x9a1c3e5f7b2d4e61ULL;

// The comm pointer process p got for its k-th communicator (0 world, 1 tp, 2 dp).
std::string comm_ptr(const Proc& p, int k) { return fmt("0x55d0c8%04x%02x", p.pid & 0xffff, k * 0x10); }

Run make_run(int steps = 3) {
  Run run;
  run.steps = steps;
  for (int r = 0; r < 8; ++r)
    run.procs.push_back(Proc{r < 4 ? "node01" : "node02", (r < 4 ? 41001 : 52001) + r % 4, r % 4, r, kBus[r % 4]});
  for (const Proc& p : run.procs) {
    std::vector<std::string> out;
    const std::string world = comm_ptr(p, 0), tp = comm_ptr(p, 1), dp = comm_ptr(p, 2);
    out.push_back(info(p, "NCCL version 2.27.5+cuda12.9"));
    out.push_back(info(p, "Bootstrap: Using eth0:10.0.0." + std::to_string(p.rank / 4 + 1) + "<0>"));
    // src/init.cc 2.27.5 ncclCommInitRankFunc
    out.push_back(info(p, fmt("%s comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx - Init START",
                              "ncclCommInitRank", world.c_str(), p.rank, 8, p.dev, p.dev, p.bus, kWorldId)));
    out.push_back(info(p, fmt("comm %s rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d", world.c_str(),
                              p.rank, 8, 2, 4, p.dev, 0)));
    out.push_back(info(p, "Channel 00/24 : 0 1 2 3 4 5 6 7"));
    out.push_back(
        info(p, fmt("%s comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx - Init COMPLETE",
                    "ncclCommInitRank", world.c_str(), p.rank, 8, p.dev, p.dev, p.bus, kWorldId)));
    const int split_rank[2] = {p.rank % 4, p.rank / 4}, split_n[2] = {4, 2}, color[2] = {p.rank / 4, p.rank % 4};
    for (int s = 0; s < 2; ++s) {
      const std::string& child = s == 0 ? tp : dp;
      out.push_back(info(p, fmt("%s comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %lx parent %s splitCount %d "
                                "color %d key %d- Init START",
                                "ncclCommSplit", child.c_str(), split_rank[s], split_n[s], p.dev, p.dev, p.bus,
                                world.c_str(), s + 1, color[s], p.rank)));
      out.push_back(
          info(p, fmt("comm %s rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d", child.c_str(),
                      split_rank[s], split_n[s], s == 0 ? 1 : 2, s == 0 ? 4 : 1, s == 0 ? p.dev : 0, 0)));
      out.push_back(info(p, fmt("%s comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %lx parent %s splitCount %d "
                                "color %d key %d - Init COMPLETE",
                                "ncclCommSplit", child.c_str(), split_rank[s], split_n[s], p.dev, p.dev, p.bus,
                                world.c_str(), s + 1, color[s], p.rank)));
    }
    // src/enqueue.cc 2.27.5 ncclEnqueueCheck
    unsigned long op_count[3] = {0, 0, 0};
    auto call = [&](int k, const char* op, size_t count, int datatype, int redop, int root, int nranks) {
      const std::string& c = k == 0 ? world : k == 1 ? tp : dp;
      out.push_back(info(
          p, fmt("%s: opCount %lx sendbuff %s recvbuff 0x7f3a5c%06x count %zu datatype %d op %d root %d comm %s "
                 "[nranks=%d] stream 0x55d0c9%06x",
                 op, op_count[k]++, std::string(op) == "Send" || std::string(op) == "Recv" ? "(nil)" : "0x7f3a40000000",
                 p.rank * 0x1000, count, datatype, redop, root, c.c_str(), nranks, p.rank * 0x100)));
    };
    const size_t params[3] = {131334144, 50331648, 3072};
    for (size_t n : params) call(0, "Broadcast", n, 9, 0, 0, 8);
    call(0, "AllReduce", 1, 7, 0, 0, 8);  // torch's barrier
    for (int step = 0; step < steps; ++step) {
      for (int mb = 0; mb < 2; ++mb) {
        for (int layer = 0; layer < 2; ++layer) {
          call(1, "AllGather", 4194304, 9, 0, 0, 4);
          call(1, "ReduceScatter", 4194304, 9, 0, 0, 4);
        }
        if (p.rank < 4)
          call(0, "Send", 8388608, 9, 0, p.rank + 4, 8);
        else
          call(0, "Recv", 8388608, 9, 0, p.rank - 4, 8);
      }
      call(2, "AllReduce", 33554432, 9, 0, 0, 2);
      call(2, "AllReduce", 1, 7, 0, 0, 2);
      call(0, "AllReduce", 2, 7, 0, 0, 8);
    }
    out.push_back(info(p, fmt("comm %s rank %d nranks %d cudaDev %d busId %lx - Destroy COMPLETE", tp.c_str(),
                              p.rank % 4, 4, p.dev, p.bus)));
    run.lines.push_back(std::move(out));
  }
  return run;
}

// The processes' lines as srun merges them into one stdout: interleaved, with the job's own output.
std::string merged(const Run& run, const std::vector<int>& procs = {0, 1, 2, 3, 4, 5, 6, 7}) {
  std::string text = "+ srun --nodes 2 --ntasks-per-node 4 python train.py\n";
  std::vector<size_t> next(run.lines.size(), 0);
  for (bool more = true; more;) {
    more = false;
    for (size_t i = 0; i < procs.size(); ++i) {
      // Processes run at different speeds: process i writes i % 3 + 1 lines at a time.
      const std::vector<std::string>& lines = run.lines[procs[i]];
      for (size_t k = 0; k < i % 3 + 1 && next[procs[i]] < lines.size(); ++k) text += lines[next[procs[i]]++];
      more = more || next[procs[i]] < lines.size();
    }
    if (next[procs[0]] == 20) text += "[rank0] step 1 | loss 10.42 | lr 3.0e-05\n";
  }
  return text;
}

NcclLog parsed(const std::string& text, const std::string& where = "train.log") {
  Result<NcclLog> log = nccl_log_parse(text, where);
  REQUIRE_MESSAGE(log.ok(), (log ? "" : log.error()));
  return *log;
}

std::string error_of(const std::string& text, const std::string& where = "train.log") {
  Result<NcclLog> log = nccl_log_parse(text, where);
  return log ? "" : log.error();
}

const NcclLogComm& comm_named(const NcclLog& log, const std::string& id) {
  for (const NcclLogComm& c : log.comms)
    if (c.comm_id == id) return c;
  FAIL("no communicator " << id);
  return log.comms.front();
}

bool warned(const NcclLog& log, const std::string& part) {
  for (const std::string& w : log.warnings)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

std::string all_warnings(const NcclLog& log) {
  std::string s;
  for (const std::string& w : log.warnings) s += w + "\n";
  return s;
}

NcclLogCall call(const char* op, uint64_t count, int datatype = 7, int peer = -1, int root = -1) {
  NcclLogCall c;
  c.op = op;
  c.count = count;
  c.datatype = datatype;
  c.peer = peer;
  c.root = root;
  return c;
}

}  // namespace

TEST_CASE("nccl_log: an 8-rank 2.27 job on 2 hosts, lines interleaved, gives its world, tp and dp communicators") {
  const Run run = make_run();
  const NcclLog log = parsed(merged(run));
  CHECK(log.version == "2.27.5");
  CHECK_MESSAGE(log.warnings.empty(), all_warnings(log));
  CHECK(log.calls_unmatched == 0);
  REQUIRE(log.comms.size() == 7);  // world, 2 tp, 4 dp

  const NcclLogComm& world = log.comms[0];
  CHECK(world.comm_id == "0x9a1c3e5f7b2d4e61");
  CHECK(world.nranks == 8);
  CHECK(world.nnodes == 2);
  CHECK(world.parent_id.empty());
  REQUIRE(world.members.size() == 8);
  for (int r = 0; r < 8; ++r) {
    CAPTURE(r);
    const NcclLogRank& m = world.members[r];
    CHECK(m.rank == r);
    CHECK(m.host == (r < 4 ? "node01" : "node02"));
    CHECK(m.pid == (r < 4 ? 41001 : 52001) + r % 4);
    CHECK(m.cuda_ordinal == r % 4);
    CHECK(m.nvml_index == r % 4);
  }
  CHECK(world.members[0].pci_busid == "0000:18:00.0");
  CHECK(world.members[7].pci_busid == "0000:5d:00.0");
  CHECK(world.first_seen.starts_with("train.log:"));
  // Broadcasts and the barrier, then per step 2 sends and the loss; rank 0 sends, and ties go to the lowest rank.
  CHECK(world.calls_from_rank == 0);
  REQUIRE(world.calls.size() == 4 + 3 * 3);
  CHECK(world.calls[0].op == "Broadcast");
  CHECK(world.calls[0].root == 0);
  CHECK(world.calls[0].bytes == 131334144.0 * 2);
  CHECK(world.calls[0].redop == -1);
  CHECK(world.calls[4].op == "Send");
  CHECK(world.calls[4].peer == 4);
  CHECK(world.calls[4].root == -1);
  CHECK(world.calls[4].bytes == 8388608.0 * 2);
  CHECK(world.calls[12].op_count == 12);

  const NcclLogComm& tp0 = comm_named(log, "0x9a1c3e5f7b2d4e61/split1/color0");
  const NcclLogComm& tp1 = comm_named(log, "0x9a1c3e5f7b2d4e61/split1/color1");
  CHECK(tp0.nranks == 4);
  CHECK(tp0.nnodes == 1);
  CHECK(tp0.parent_id == world.comm_id);
  CHECK(tp0.split_color == 0);
  REQUIRE(tp1.members.size() == 4);
  CHECK(tp1.members[2].host == "node02");
  CHECK(tp1.members[2].cuda_ordinal == 2);
  REQUIRE(tp0.calls.size() == 3 * 2 * 2 * 2);
  CHECK(tp0.calls[0].op == "AllGather");
  CHECK(tp0.calls[0].bytes == 4194304.0 * 2 * 4);  // count is per rank
  CHECK(tp0.calls[1].op == "ReduceScatter");
  CHECK(tp0.calls[1].bytes == 4194304.0 * 2 * 4);
  CHECK(tp0.calls[1].redop == 0);

  for (int c = 0; c < 4; ++c) {
    CAPTURE(c);
    const NcclLogComm& dp = comm_named(log, "0x9a1c3e5f7b2d4e61/split2/color" + std::to_string(c));
    CHECK(dp.nranks == 2);
    CHECK(dp.nnodes == 2);
    REQUIRE(dp.members.size() == 2);
    CHECK(dp.members[0].host == "node01");
    CHECK(dp.members[1].host == "node02");
    CHECK(dp.members[1].cuda_ordinal == c);
    REQUIRE(dp.calls.size() == 6);
    CHECK(dp.calls[0].op == "AllReduce");
    CHECK(dp.calls[0].bytes == 33554432.0 * 2);
    CHECK(dp.calls[1].bytes == 4);
  }
  // The steps: dp repeats once per step, tp per layer and micro-batch, the world per step after its setup.
  const StepPattern dp = nccl_log_pattern(comm_named(log, "0x9a1c3e5f7b2d4e61/split2/color3").calls);
  const StepPattern tp = nccl_log_pattern(tp0.calls), w = nccl_log_pattern(world.calls);
  CHECK(dp.period == 2);
  CHECK(dp.setup_calls == 0);
  CHECK(dp.repeats == 3);
  CHECK(tp.period == 2);
  CHECK(tp.repeats == 12);
  CHECK(w.period == 3);
  CHECK(w.setup_calls == 4);
  CHECK(w.repeats == 3);
  CHECK(log.lines_used > 0);
  CHECK(log.lines > log.lines_used);
}

TEST_CASE("nccl_log: per-host files load as one log, the same commId in both files one communicator") {
  const Run run = make_run();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("nccl_log_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string a = (dir / "node01.log").string(), b = (dir / "node02.log").string();
  std::ofstream(a) << merged(run, {0, 1, 2, 3});
  std::ofstream(b) << merged(run, {4, 5, 6, 7});
  Result<NcclLog> log = nccl_log_load({a, b});
  std::filesystem::remove_all(dir);
  REQUIRE_MESSAGE(log.ok(), (log ? "" : log.error()));
  CHECK_MESSAGE(log->warnings.empty(), all_warnings(*log));
  REQUIRE(log->comms.size() == 7);
  const NcclLogComm& world = log->comms[0];
  CHECK(world.members.size() == 8);
  CHECK(world.first_seen.starts_with(a + ":"));
  const NcclLogComm& dp = comm_named(*log, "0x9a1c3e5f7b2d4e61/split2/color1");
  REQUIRE(dp.members.size() == 2);
  CHECK(dp.members[0].pid == 41002);
  CHECK(dp.members[1].pid == 52002);
  CHECK(dp.calls.size() == 6);
  // The one merged file says the same.
  const NcclLog one = parsed(merged(run));
  CHECK(one.lines_used == log->lines_used);
  CHECK(one.lines > 0);

  CHECK(nccl_log_load({}).error() == "no NCCL log files given");
  Result<NcclLog> missing = nccl_log_load({(dir / "nothing.log").string()});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().find("nothing.log: cannot read") != std::string::npos);
}

TEST_CASE("nccl_log: a 2.18 log: the version printf'd bare by rank 0, init lines without a name, START or nvmlDev") {
  // NCCL 2.18.1: showVersion's printf on stdout (rank 0 only), "comm %p rank %d nranks %d cudaDev %d
  // busId %lx commId 0x%llx - Init COMPLETE", a split printed alike (its commId hashes the parent's
  // and the color), "%zi" counts.
  const std::string text =
      "NCCL version 2.18.1+cuda12.1\n"
      "gpu-a7:3101:3101 [0] NCCL INFO Bootstrap : Using ib0:10.149.0.7<0>\n"
      "gpu-a7:3102:3102 [1] NCCL INFO cudaDriverVersion 12020\n"
      "gpu-a7:3101:3177 [0] NCCL INFO comm 0x5607e1c0b2a0 rank 0 nranks 2 cudaDev 0 busId 7000 commId "
      "0x5e2bd0cb1a44f0de - Init COMPLETE\n"
      "gpu-a7:3102:3178 [1] NCCL INFO comm 0x55c3f2d8a6e0 rank 1 nranks 2 cudaDev 1 busId b000 commId "
      "0x5e2bd0cb1a44f0de - Init COMPLETE\n"
      "gpu-a7:3101:3101 [0] NCCL INFO Broadcast: opCount 0 sendbuff 0x7f1e3a000000 recvbuff 0x7f1e3a000000 count "
      "25557032 datatype 7 op 0 root 0 comm 0x5607e1c0b2a0 [nranks=2] stream 0x5607e1b9c6d0\n"
      "gpu-a7:3102:3102 [1] NCCL INFO Broadcast: opCount 0 sendbuff 0x7f92b4000000 recvbuff 0x7f92b4000000 count "
      "25557032 datatype 7 op 0 root 0 comm 0x55c3f2d8a6e0 [nranks=2] stream 0x55c3f2d1e9b0\n"
      "gpu-a7:3101:3180 [0] NCCL INFO comm 0x5607e2d5f010 rank 0 nranks 2 cudaDev 0 busId 7000 commId "
      "0x9c4e6a0f3b1d2c55 - Init COMPLETE\n"
      "gpu-a7:3102:3181 [1] NCCL INFO comm 0x55c3f3e1c4a0 rank 1 nranks 2 cudaDev 1 busId b000 commId "
      "0x9c4e6a0f3b1d2c55 - Init COMPLETE\n"
      "gpu-a7:3101:3101 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x7f1e40000000 recvbuff 0x7f1e40000000 count "
      "25557032 datatype 7 op 0 root 0 comm 0x5607e2d5f010 [nranks=2] stream 0x5607e1b9c6d0\n"
      "gpu-a7:3102:3102 [1] NCCL INFO AllReduce: opCount 0 sendbuff 0x7f92ba000000 recvbuff 0x7f92ba000000 count "
      "25557032 datatype 7 op 0 root 0 comm 0x55c3f3e1c4a0 [nranks=2] stream 0x55c3f2d1e9b0\n"
      "gpu-a7:3101:3101 [0] NCCL INFO AllReduce: opCount 1 sendbuff 0x7f1e40000000 recvbuff 0x7f1e40000000 count "
      "25557032 datatype 7 op 0 root 0 comm 0x5607e2d5f010 [nranks=2] stream 0x5607e1b9c6d0\n";
  const NcclLog log = parsed(text);
  CHECK(log.version == "2.18.1");
  CHECK_MESSAGE(log.warnings.empty(), all_warnings(log));
  REQUIRE(log.comms.size() == 2);
  const NcclLogComm& c = log.comms[0];
  CHECK(c.comm_id == "0x5e2bd0cb1a44f0de");
  CHECK(c.nnodes == 0);  // the nNodes line is 2.20's
  REQUIRE(c.members.size() == 2);
  CHECK(c.members[1].host == "gpu-a7");
  CHECK(c.members[1].nvml_index == -1);
  CHECK(c.members[1].pci_busid == "0000:0b:00.0");
  REQUIRE(c.calls.size() == 1);
  CHECK(c.calls[0].bytes == 25557032.0 * 4);
  // The split is a communicator of its own; 2.18's line does not name the parent.
  const NcclLogComm& s = log.comms[1];
  CHECK(s.comm_id == "0x9c4e6a0f3b1d2c55");
  CHECK(s.parent_id.empty());
  CHECK(s.calls_from_rank == 0);  // rank 0 logged one more
  CHECK(s.calls.size() == 2);
  CHECK(log.lines == 12);
  CHECK(log.lines_used == 1 + 4 + 5);
}

TEST_CASE(
    "nccl_log: 2.21 and 2.23 splits: the caller's name first, a commId until 2.22, none (and no splitCount) in 2.23") {
  SUBCASE("2.21: ncclCommSplit with parent, color, key and commId") {
    const std::string text =
        "h1:10:10 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
        "h1:10:10 [0] NCCL INFO ncclCommInitRank comm 0x1000 rank 0 nranks 2 cudaDev 0 nvmlDev 4 busId 9a000 commId "
        "0xaaaa - Init START\n"
        "h1:11:11 [1] NCCL INFO ncclCommInitRank comm 0x2000 rank 1 nranks 2 cudaDev 1 nvmlDev 5 busId ab000 commId "
        "0xaaaa - Init START\n"
        "h1:10:10 [0] NCCL INFO comm 0x1000 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n"
        "h1:10:10 [0] NCCL INFO ncclCommInitRank comm 0x1000 rank 0 nranks 2 cudaDev 0 nvmlDev 4 busId 9a000 commId "
        "0xaaaa - Init COMPLETE\n"
        "h1:11:11 [1] NCCL INFO ncclCommInitRank comm 0x2000 rank 1 nranks 2 cudaDev 1 nvmlDev 5 busId ab000 commId "
        "0xaaaa - Init COMPLETE\n"
        "h1:10:10 [0] NCCL INFO ncclCommSplit comm 0x1100 rank 0 nranks 1 cudaDev 0 nvmlDev 4 busId 9a000 parent "
        "0x1000 color 0 key 0 commId 0xbbbb - Init START\n"
        "h1:11:11 [1] NCCL INFO ncclCommSplit comm 0x2100 rank 0 nranks 1 cudaDev 1 nvmlDev 5 busId ab000 parent "
        "0x2000 color 1 key 1 commId 0xcccc - Init START\n"
        "h1:10:10 [0] NCCL INFO ncclCommSplit comm 0x1100 rank 0 nranks 1 cudaDev 0 nvmlDev 4 busId 9a000 parent "
        "0x1000 color 0 key 0 commId 0xbbbb - Init COMPLETE\n"
        "h1:11:11 [1] NCCL INFO ncclCommSplit comm 0x2100 rank 0 nranks 1 cudaDev 1 nvmlDev 5 busId ab000 parent "
        "0x2000 color 1 key 1 commId 0xcccc - Init COMPLETE\n"
        "h1:10:10 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x7f00 recvbuff 0x7f00 count 1024 datatype 10 op 0 root "
        "0 comm 0x1100 [nranks=1] stream 0x5500\n";
    const NcclLog log = parsed(text);
    CHECK(log.version == "2.21.5");
    REQUIRE(log.comms.size() == 3);
    CHECK(log.comms[0].members[1].nvml_index == 5);
    CHECK(log.comms[0].nnodes == 1);
    CHECK(log.comms[1].comm_id == "0xbbbb");
    CHECK(log.comms[1].parent_id == "0xaaaa");
    CHECK(log.comms[2].split_color == 1);
    // fp8 is 2.24's: datatype 10 is no type in 2.21.
    REQUIRE(log.comms[1].calls.size() == 1);
    CHECK(log.comms[1].calls[0].bytes == 0);
    CHECK(warned(log, "train.log:11: datatype 10 is no ncclDataType_t of NCCL 2.21.5"));
  }
  SUBCASE("2.23: the split known by its parent and color, its ordinal counted") {
    auto split = [](int pid, const char* comm, int rank, const char* parent, int color, const char* end) {
      return fmt(
          "h1:%d:%d [0] NCCL INFO ncclCommSplit comm %s rank %d nranks 2 cudaDev %d nvmlDev %d busId %x parent %s "
          "color %d key %d%s\n",
          pid, pid, comm, rank, pid - 10, pid - 10, 0x18000 + (pid - 10) * 0x1000, parent, color, rank, end);
    };
    std::string text = "h1:10:10 [0] NCCL INFO NCCL version 2.23.4+cuda12.6\n";
    for (int pid : {10, 11})
      text +=
          fmt("h1:%d:%d [0] NCCL INFO ncclCommInitRank comm 0x%d00 rank %d nranks 2 cudaDev %d nvmlDev %d busId %x "
              "commId 0x77 - Init COMPLETE\n",
              pid, pid, pid, pid - 10, pid - 10, pid - 10, 0x18000 + (pid - 10) * 0x1000);
    // Two splits of the world with one color: the second is another communicator.
    text += split(10, "0xa1", 0, "0x1000", 0, "- Init START") + split(11, "0xb1", 1, "0x1100", 0, "- Init START");
    text +=
        split(10, "0xa1", 0, "0x1000", 0, " - Init COMPLETE") + split(11, "0xb1", 1, "0x1100", 0, " - Init COMPLETE");
    text +=
        split(10, "0xa2", 0, "0x1000", 0, " - Init COMPLETE") + split(11, "0xb2", 1, "0x1100", 0, " - Init COMPLETE");
    const NcclLog log = parsed(text);
    CHECK_MESSAGE(log.warnings.empty(), all_warnings(log));
    REQUIRE(log.comms.size() == 3);
    CHECK(log.comms[1].comm_id == "0x77/split0/color0");
    CHECK(log.comms[1].members.size() == 2);
    CHECK(log.comms[2].comm_id == "0x77/split1/color0");
    CHECK(log.comms[2].members.size() == 2);
    CHECK(log.comms[2].parent_id == "0x77");
  }
  SUBCASE("2.18-2.22: one commId for two splits of a parent with one color: the second is '#2'") {
    std::string text = "NCCL version 2.19.3+cuda12.2\n";
    for (int k : {1, 2})
      for (int pid : {10, 11})
        text +=
            fmt("h1:%d:%d [%d] NCCL INFO comm 0x%d%d0 rank %d nranks 2 cudaDev %d nvmlDev %d busId %x commId 0x5150 - "
                "Init COMPLETE\n",
                pid, pid, pid - 10, pid, k, pid - 10, pid - 10, pid - 10, 0x18000 + (pid - 10) * 0x1000);
    const NcclLog log = parsed(text);
    REQUIRE(log.comms.size() == 2);
    CHECK(log.comms[0].comm_id == "0x5150");
    CHECK(log.comms[1].comm_id == "0x5150#2");
    CHECK(log.comms[1].members.size() == 2);
  }
}

TEST_CASE("nccl_log: prefixes: 2.26's timestamps, srun -l and mpirun --tag-output labels, CRLF") {
  const std::string init = "comm 0x55aa rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 18000 commId 0x42 - Init COMPLETE";
  const std::string coll =
      "AllReduce: opCount 0 sendbuff 0x7f00 recvbuff 0x7f00 count 8 datatype 4 op 0 root 0 comm 0x55aa [nranks=1] "
      "stream 0x5500";
  for (const std::string& prefix : {std::string("[2025-06-02 14:03:11] "), std::string("[2025-06-02 14:03:11.123456]"),
                                    std::string("0: "), std::string("[1,0]<stdout>:"), std::string("")}) {
    CAPTURE(prefix);
    const std::string text = "[2025-06-02 14:03:10] NCCL version 2.26.5+cuda12.8\n" + prefix +
                             "dgx-b200-017:88:88 [0] NCCL INFO " + init + "\r\n" + prefix +
                             "dgx-b200-017:88:91 [0] NCCL INFO " + coll + "\r\n";
    const NcclLog log = parsed(text);
    CHECK(log.version == "2.26.5");
    REQUIRE(log.comms.size() == 1);
    CHECK(log.comms[0].members[0].host == "dgx-b200-017");
    CHECK(log.comms[0].members[0].pid == 88);
    REQUIRE(log.comms[0].calls.size() == 1);
    CHECK(log.comms[0].calls[0].bytes == 64);
  }
}

TEST_CASE("nccl_log: a truncated last line and lines mixed mid-file are warnings with their line numbers") {
  const Run run = make_run(2);
  std::string text = merged(run);
  SUBCASE("the last line cut mid-field") {
    text +=
        "node01:41001:41001 [0] NCCL INFO AllReduce: opCount 1a sendbuff 0x7f3a40000000 recvbuff 0x7f3a5c000000 count "
        "3355";
    const int last = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
    const NcclLog log = parsed(text);
    REQUIRE(log.warnings.size() == 1);
    CHECK(log.warnings[0].starts_with("train.log:" + std::to_string(last) + ": the last line is cut short"));
    CHECK(log.comms.size() == 7);
  }
  SUBCASE("an init line cut short at the end") {
    text += "node02:52009:52009 [1] NCCL INFO ncclCommSplit comm 0x55d0c8aa0000 rank 0 nranks 2 cudaDev 1 nvml";
    const NcclLog log = parsed(text);
    REQUIRE(log.warnings.size() == 1);
    CHECK(log.warnings[0].find("the last line is cut short (an init line like") != std::string::npos);
  }
  SUBCASE("two processes' lines mixed into one, mid-file") {
    const size_t at = text.find("NCCL INFO AllGather");
    const size_t end = text.find('\n', at);
    text.insert(end, "node02:52001:52001 [0] NCCL INFO AllGather: opCount 3 sendbuff");
    const NcclLog log = parsed(text);
    REQUIRE(log.warnings.size() == 2);
    CHECK(log.warnings[0].find("expected one NCCL line") != std::string::npos);
    CHECK(log.warnings[0].find("left out (processes writing one stream can cut and mix lines)") != std::string::npos);
    // That line's call is lost, so its rank's calls differ from the others'; another rank's are kept.
    CHECK(log.warnings[1].find("collective #1 (ReduceScatter count 4194304 datatype 9) is not rank") !=
          std::string::npos);
    CHECK(comm_named(log, "0x9a1c3e5f7b2d4e61/split1/color0").calls.size() == 2 * 2 * 2 * 2);
    CHECK(comm_named(log, "0x9a1c3e5f7b2d4e61/split1/color1").calls.size() == 2 * 2 * 2 * 2);
  }
}

TEST_CASE("nccl_log: versions: outside 2.18-2.28 or missing is a warning, and the lines that match are read") {
  const std::string body =
      "h:1:1 [0] NCCL INFO comm 0x10 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 18000 commId 0x1 - Init COMPLETE\n"
      "h:1:1 [0] NCCL INFO AllGather: opCount 0 sendbuff 0x7f recvbuff 0x7f count 16 datatype 11 op 0 root 0 comm 0x10 "
      "[nranks=1] stream 0x55\n";
  SUBCASE("2.30") {
    const NcclLog log = parsed("h:1:1 [0] NCCL INFO NCCL version 2.30.4+cuda13.0\n" + body);
    CHECK(log.version == "2.30.4");
    REQUIRE(log.warnings.size() == 1);
    CHECK(log.warnings[0] ==
          "train.log:1: NCCL 2.30.4 is outside the versions this reader follows (2.18 to 2.28); the lines that match "
          "are read");
    CHECK(log.comms[0].calls[0].bytes == 16);  // fp8 e5m2
  }
  SUBCASE("2.17") {
    const NcclLog log = parsed("NCCL version 2.17.1+cuda12.0\n" + body);
    CHECK(warned(log, "NCCL 2.17.1 is outside"));
  }
  SUBCASE("none") {
    const NcclLog log = parsed(body);
    CHECK(log.version.empty());
    REQUIRE(log.warnings.size() == 1);
    CHECK(log.warnings[0].starts_with("train.log: no 'NCCL version' line"));
    CHECK(log.comms.size() == 1);
  }
  SUBCASE("two") {
    const NcclLog log =
        parsed("NCCL version 2.27.5+cuda12.9\n" + body + "h:2:2 [0] NCCL INFO NCCL version 2.28.3+cuda12.9\n");
    CHECK(log.version == "2.27.5");
    CHECK(warned(log, "train.log:4: NCCL 2.28.3, but train.log:1 says 2.27.5"));
  }
}

TEST_CASE(
    "nccl_log: calls on communicators no init line set up are counted apart; an error when nothing else is there") {
  const std::string init =
      "h:1:1 [0] NCCL INFO comm 0x10 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x1 - Init COMPLETE\n";
  const std::string orphan =
      "h:1:1 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x7f recvbuff 0x7f count 16 datatype 7 op 0 root 0 comm 0x99 "
      "[nranks=2] stream 0x55\n";
  const NcclLog log = parsed(init + orphan + orphan);
  CHECK(log.calls_unmatched == 2);
  REQUIRE(log.warnings.size() == 2);  // the orphan calls and the missing version
  CHECK(warned(
      log,
      "train.log:2: 2 call(s) on communicator 0x99 of process h:1, which no init line in the log set up; left out"));
  CHECK(log.comms[0].calls.empty());
  CHECK(log.comms[0].calls_from_rank == -1);

  CHECK(error_of(orphan + orphan) ==
        "train.log: no communicator init line among 2 NCCL lines (expected 'host:1234:1234 [0] NCCL INFO comm 0x55... "
        "rank 0 "
        "nranks 8 cudaDev 0 nvmlDev 0 busId 18000 commId 0x... - Init COMPLETE'; NCCL_DEBUG_SUBSYS must include INIT); "
        "2 calls "
        "name communicators never initialised");
  // A pointer destroyed is no longer that communicator.
  const NcclLog destroyed =
      parsed(init + "h:1:1 [0] NCCL INFO comm 0x10 rank 0 nranks 2 cudaDev 0 busId 18000 - Destroy COMPLETE\n" +
             "h:1:1 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x7f recvbuff 0x7f count 16 datatype 7 op 0 root 0 "
             "comm 0x10 [nranks=2] stream 0x55\n");
  CHECK(destroyed.calls_unmatched == 1);
}

TEST_CASE("nccl_log: bad input is an error naming the file, the line and what was expected") {
  CHECK(error_of("epoch 1 loss 2.3\nepoch 2 loss 2.1\n", "job.out") ==
        "job.out: no NCCL log lines (expected lines like 'host:1234:1234 [0] NCCL INFO comm 0x55... rank 0 nranks 8 "
        "cudaDev 0 "
        "nvmlDev 0 busId 18000 commId 0x... - Init COMPLETE' and 'host:1234:1290 [0] NCCL INFO AllReduce: opCount 0 "
        "sendbuff "
        "0x7f... recvbuff 0x7f... count 1048576 datatype 7 op 0 root 0 comm 0x55... [nranks=8] stream 0x55...', from a "
        "run with "
        "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL)");
  CHECK(error_of("").starts_with("train.log: no NCCL log lines"));
  CHECK(error_of("x\nh:1:1 [0] NCCL INFO comm 0x10 rank 0 nranks 0 cudaDev 0 nvmlDev 0 busId 18000 commId 0x1 - Init "
                 "START\n") ==
        "train.log:2: an init line with nranks 0 (expected 1 to 1048576), in 'h:1:1 [0] NCCL INFO comm 0x10 rank 0 "
        "nranks 0 cudaDev 0 "
        "nvmlDev 0 busId 18000 commId 0x1 - Init START'");
  CHECK(
      error_of(
          "h:1:1 [0] NCCL INFO comm 0x10 rank 4 nranks 4 cudaDev 0 nvmlDev 0 busId 18000 commId 0x1 - Init COMPLETE\n")
          .starts_with("train.log:1: rank 4 of a communicator of 4 ranks (expected 0 to 3)"));
  CHECK(
      error_of(
          "h:1:1 [0] NCCL INFO comm 0x10 rank -1 nranks 4 cudaDev 0 nvmlDev 0 busId 18000 commId 0x1 - Init COMPLETE\n")
          .starts_with("train.log:1: rank -1 of a communicator of 4 ranks"));
  // Two processes claim rank 1 of one communicator on different GPUs.
  CHECK(error_of(
            "h:1:1 [0] NCCL INFO comm 0x10 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x1 - Init COMPLETE\n"
            "h:2:2 [1] NCCL INFO comm 0x20 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 2a000 commId 0x1 - Init "
            "COMPLETE\n") ==
        "train.log:2: rank 1 of communicator 0x1 is cuda device 1 (0000:2a:00.0) on h (pid 2), but train.log:1 gave "
        "that rank to "
        "cuda device 0 (0000:18:00.0) on h (pid 1)");
  CHECK(error_of(
            "h:1:1 [0] NCCL INFO comm 0x10 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x1 - Init COMPLETE\n"
            "h:2:2 [1] NCCL INFO comm 0x20 rank 1 nranks 4 cudaDev 1 nvmlDev 1 busId 2a000 commId 0x1 - Init "
            "COMPLETE\n") == "train.log:2: communicator 0x1 has 4 ranks here, but 2 at train.log:1");
  // Huge counts: bytes past 1e18 are refused, not overflowed.
  const std::string init =
      "h:1:1 [0] NCCL INFO comm 0x10 rank 0 nranks 1048576 cudaDev 0 nvmlDev 0 busId 18000 commId 0x1 - Init "
      "COMPLETE\n";
  CHECK(
      error_of(
          init +
          "h:1:1 [0] NCCL INFO AllGather: opCount 0 sendbuff 0x7f recvbuff 0x7f count 18446744073709551615 datatype 8 "
          "op 0 root 0 comm 0x10 [nranks=1048576] stream 0x55\n")
          .starts_with("train.log:2: AllGather of count 18446744073709551615 of datatype 8 on 1048576 ranks is more "
                       "than the limit of "
                       "1e18 bytes (limits::kMaxBytes)"));
  // A count past 2^64 cannot be NCCL's: that line is damaged, not a call.
  const NcclLog log =
      parsed(init +
             "h:1:1 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x7f recvbuff 0x7f count 99999999999999999999999 "
             "datatype 7 op 0 root 0 comm 0x10 [nranks=1048576] stream 0x55\n");
  CHECK(log.comms[0].calls.empty());
  CHECK(warned(log, "train.log:2: expected a COLL line like"));
}

TEST_CASE("nccl_log: binary garbage and damaged lines never crash: an error or warnings, and bounded") {
  std::string garbage;
  uint32_t x = 12345;
  for (int i = 0; i < 200000; ++i) {
    x = x * 1103515245 + 12345;
    garbage += static_cast<char>(x >> 24);
  }
  CHECK_FALSE(error_of(garbage).empty());
  // Many damaged NCCL lines: a few warnings each kind, then a count of the rest.
  std::string text =
      "h:1:1 [0] NCCL INFO comm 0x10 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x1 - Init COMPLETE\n";
  for (int i = 0; i < 1000; ++i)
    text += "h:1:1 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x7f recvbuff\n" + garbage.substr(i * 50, 50) + "\n";
  const NcclLog log = parsed(text);
  CHECK(log.warnings.size() < 30);
  CHECK(warned(log, "... and 992 more lines cut or mixed"));
  // Other NCCL lines that begin with "comm" are not init lines.
  const NcclLog other = parsed(
      text.substr(0, text.find('\n') + 1) +
      "h:1:1 [0] NCCL INFO comm 0x10 rank 0 nRanks 2 cudaDev 0 busId 18000 - Revoke START\n"
      "h:1:1 [0] NCCL INFO NVLS comm 0x10 headRank 0 nHeads 4 buffSize 1048576\n"
      "h:1:1 [0] NCCL INFO bootstrapSplit: comm 0x20 parent 0x10 rank 0 nranks 1 color 0 key 0 prev 0 next 0 - DONE\n");
  CHECK(other.comms.size() == 1);
  CHECK(other.warnings.size() == 1);  // the version
}

TEST_CASE("nccl_log: ranks whose collectives disagree are a warning; the longest rank's calls are kept") {
  std::string text = "NCCL version 2.28.3+cuda12.9\n";
  for (int pid : {1, 2})
    text +=
        fmt("h:%d:%d [0] NCCL INFO ncclCommInitRank comm 0x%d0 rank %d nranks 2 cudaDev %d nvmlDev %d busId %x commId "
            "0x1 - Init COMPLETE\n",
            pid, pid, pid, pid - 1, pid - 1, pid - 1, 0x18000 + pid * 0x1000);
  auto coll = [](int pid, const char* op, int count, int root) {
    return fmt(
        "h:%d:%d [0] NCCL INFO %s: opCount 0 sendbuff 0x7f recvbuff 0x7f count %d datatype 7 op 0 root %d comm 0x%d0 "
        "[nranks=2] stream 0x55\n",
        pid, pid, op, count, root, pid);
  };
  text += coll(1, "AllReduce", 100, 0) + coll(2, "AllReduce", 100, 0) + coll(1, "Send", 5, 1) + coll(2, "Recv", 5, 0);
  text += coll(1, "AlltoAll", 64, 0) + coll(2, "AlltoAll", 64, 0) + coll(1, "Gather", 8, 1) + coll(2, "Gather", 8, 1);
  text += coll(1, "AllReduce", 200, 0) + coll(2, "AllReduce", 300, 0) + coll(2, "AllReduce", 300, 0);
  const NcclLog log = parsed(text);
  REQUIRE(log.comms.size() == 1);
  const NcclLogComm& c = log.comms[0];
  CHECK(c.calls_from_rank == 1);
  REQUIRE(c.calls.size() == 6);
  CHECK(c.calls[1].op == "Recv");
  CHECK(c.calls[1].peer == 0);
  CHECK(c.calls[2].bytes == 64.0 * 4 * 2);  // AlltoAll's count is per peer
  CHECK(c.calls[3].root == 1);
  CHECK(c.calls[3].bytes == 8.0 * 4 * 2);
  REQUIRE(log.warnings.size() == 1);
  CHECK(log.warnings[0] ==
        "communicator 0x1: rank 0's collective #4 (AllReduce count 200 datatype 7) is not rank 1's (AllReduce count "
        "300 datatype 7); "
        "the calls kept are rank 1's");
  // A root past nranks cannot pass NCCL's ArgsCheck: a damaged line.
  const NcclLog bad_root = parsed(text + coll(1, "Broadcast", 8, 2));
  CHECK(warned(bad_root, "expected a root below nranks"));
}

TEST_CASE("nccl_log: pattern: dp once per step and tp per micro-batch; the fewest repeats is the step count") {
  std::vector<NcclLogCall> dp, tp;
  for (int step = 0; step < 5; ++step) {
    for (int bucket = 0; bucket < 3; ++bucket) dp.push_back(call("AllReduce", 1000 + bucket));
    for (int mb = 0; mb < 4; ++mb) {
      tp.push_back(call("AllGather", 4096, 9));
      tp.push_back(call("ReduceScatter", 4096, 9));
    }
  }
  const StepPattern d = nccl_log_pattern(dp), t = nccl_log_pattern(tp);
  CHECK(d.period == 3);
  CHECK(d.repeats == 5);
  CHECK(t.period == 2);
  CHECK(t.repeats == 20);
  CHECK(std::min(d.repeats, t.repeats) == 5);
}

TEST_CASE("nccl_log: pattern: a setup prefix, a step cut short at the end, trailing calls, and nothing that repeats") {
  SUBCASE("setup") {
    std::vector<NcclLogCall> calls = {call("Broadcast", 7, 7, -1, 0), call("Broadcast", 9, 7, -1, 0),
                                      call("AllReduce", 1)};
    for (int step = 0; step < 4; ++step)
      for (int k : {10, 20, 30}) calls.push_back(call("AllReduce", k));
    const StepPattern p = nccl_log_pattern(calls);
    CHECK(p.period == 3);
    CHECK(p.setup_calls == 3);
    CHECK(p.trailing_calls == 0);
    CHECK(p.repeats == 4);
  }
  SUBCASE("the log ends inside a step") {
    std::vector<NcclLogCall> calls = {call("Broadcast", 7, 7, -1, 0)};
    for (int step = 0; step < 4; ++step)
      for (int k : {10, 20, 30, 40}) calls.push_back(call("AllReduce", k));
    calls.push_back(call("AllReduce", 10));
    const StepPattern p = nccl_log_pattern(calls);
    CHECK(p.period == 4);
    CHECK(p.setup_calls == 1);
    CHECK(p.repeats == doctest::Approx(4.25));
  }
  SUBCASE("a final barrier after the steps") {
    std::vector<NcclLogCall> calls;
    for (int step = 0; step < 10; ++step) calls.push_back(call("AllReduce", 1 << 20));
    calls.push_back(call("AllReduce", 1, 2));
    const StepPattern p = nccl_log_pattern(calls);
    CHECK(p.period == 1);
    CHECK(p.setup_calls == 0);
    CHECK(p.trailing_calls == 1);
    CHECK(p.repeats == 10);
  }
  SUBCASE("send and recv tell peers and roots apart") {
    std::vector<NcclLogCall> calls;
    for (int k = 0; k < 6; ++k) calls.push_back(call(k % 2 ? "Recv" : "Send", 64, 9, k % 3));
    CHECK(nccl_log_pattern(calls).period == 0);  // 2 without the peers; with them, 6 calls are one repeat
    const std::vector<NcclLogCall> once = calls;
    calls.insert(calls.end(), once.begin(), once.end());
    CHECK(nccl_log_pattern(calls).period == 6);
    CHECK(nccl_log_pattern(calls).repeats == 2);
  }
  SUBCASE("nothing repeats") {
    std::vector<NcclLogCall> calls;
    for (int k = 0; k < 20; ++k) calls.push_back(call("AllReduce", k));
    const StepPattern p = nccl_log_pattern(calls);
    CHECK(p.period == 0);
    CHECK(p.repeats == 0);
    CHECK(nccl_log_pattern({}).period == 0);
    CHECK(nccl_log_pattern({call("AllReduce", 1)}).period == 0);
    CHECK(nccl_log_pattern({call("AllReduce", 1), call("AllReduce", 1)}).repeats == 2);
  }
}

TEST_CASE("nccl_log: pattern over 10^6 calls is fast") {
  std::vector<NcclLogCall> calls;
  calls.reserve(1'000'000);
  for (int k = 0; k < 17; ++k) calls.push_back(call("Broadcast", k + 100, 7, -1, 0));
  while (calls.size() < 1'000'000)
    calls.push_back(call(calls.size() % 2 ? "AllGather" : "ReduceScatter", 1 << (calls.size() % 250 / 10), 9));
  calls.push_back(call("AllReduce", 3));  // a final barrier: every trailing count is tried
  const auto start = std::chrono::steady_clock::now();
  const StepPattern p = nccl_log_pattern(calls);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(p.period == 250);
  CHECK(p.setup_calls == 17);
  CHECK(p.trailing_calls == 1);
  CHECK(seconds < 5);
}

}  // namespace topoplan

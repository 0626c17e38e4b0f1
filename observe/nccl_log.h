// NCCL's own debug log (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL) as NCCL 2.18 to 2.28 print it,
// so the communicators a real job built and the collectives it issued can be set beside a plan.
// The lines read (docs/nccl-log.md has each with its source line and the versions that print it):
//   prefix   src/debug.cc ncclDebugLog: "%s:%d:%d [%d] NCCL INFO " (hostname cut at its first '.',
//            pid, tid, current CUDA device); 2.26 on, a strftime timestamp before it ("[%F %T] " unless
//            NCCL_DEBUG_TIMESTAMP_FORMAT) for the levels NCCL_DEBUG_TIMESTAMP_LEVELS names (WARN alone
//            by default). Launcher labels before it (srun -l "3: ", mpirun --tag-output) are skipped.
//   version  src/init.cc showVersion: "NCCL version 2.21.5+cuda12.4", a bare printf from rank 0 up to
//            2.21, an INFO line from every process from 2.22.
//   init     src/init.cc ncclCommInitRankFunc: "comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId
//            %lx commId 0x%llx - Init START|COMPLETE" (2.18.1: COMPLETE alone, no nvmlDev); from 2.21
//            the caller's name first ("ncclCommInitRank comm ...", "ncclCommSplit comm ... parent %p
//            color %d key %d commId ..."); from 2.23 a split's line has no commId, from 2.24 it has
//            "splitCount %d". 2.20 on: "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank
//            %d MNNVL %d". "comm %p ... - Destroy COMPLETE" / "- Abort COMPLETE" end a communicator.
//   coll     src/enqueue.cc ncclEnqueueCheck: "%s: opCount %lx sendbuff %p recvbuff %p count %zi
//            datatype %d op %d root %d comm %p [nranks=%d] stream %p" (%zu from 2.22); Send and Recv
//            print their peer as root; AlltoAll, Gather and Scatter from 2.28.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace topoplan {

// One rank of a communicator, from its init line.
struct NcclLogRank {
  std::string host;  // as NCCL prints it: gethostname() cut at the first '.'
  int pid = 0;
  int cuda_ordinal = -1;  // cudaDev
  int nvml_index = -1;    // nvmlDev; -1 where the line has none (2.18.1)
  std::string pci_busid;  // "0000:18:00.0": busId's %lx as NCCL's int64ToBusId spells it
  int rank = -1;
};

// One collective or point-to-point call, from its COLL line.
struct NcclLogCall {
  std::string op;         // as NCCL prints it: AllReduce, AllGather, ReduceScatter, Broadcast, Reduce,
                          // Send, Recv; AlltoAll, Gather, Scatter (2.28)
  uint64_t op_count = 0;  // the communicator's opCount when the call was enqueued
  uint64_t count = 0;     // elements as the API takes them: per rank for AllGather, ReduceScatter,
                          // Gather and Scatter, per peer for AlltoAll
  int datatype = -1;      // ncclDataType_t
  int redop = -1;         // ncclRedOp_t; -1 for ops that do not reduce
  int peer = -1;          // Send and Recv
  int root = -1;          // Broadcast, Reduce, Gather, Scatter
  double bytes = 0;       // nccl-tests' size (the larger buffer): count x word for AllReduce,
                          // Broadcast, Reduce, Send, Recv; count x word x nranks for the others;
                          // 0 when the datatype is unknown
};

struct NcclLogComm {
  // The commId hash as printed ("0x4b2a9c..."), shared by every rank of the communicator. A 2.23+
  // split prints none: "<parent's id>/split<N>/color<C>". A later communicator under an id already
  // seen (a 2.18-2.22 split of one parent twice with one color) gets "#2", "#3" ...
  std::string comm_id;
  int nranks = 0;
  int nnodes = 0;         // 0 unless the log says (2.20 on)
  std::string parent_id;  // ncclCommSplit's parent, "" otherwise (and before 2.21)
  int split_color = -1;
  std::vector<NcclLogRank> members;  // by rank, only those the log shows
  std::vector<NcclLogCall> calls;    // one rank's calls in order (all ranks issue the same collectives)
  int calls_from_rank = -1;          // the rank that logged the most; -1 without calls
  std::string first_seen;            // "file:line" of its first init line
};

struct NcclLog {
  std::string version;             // "2.21.5"; "" when no version line was found
  std::vector<NcclLogComm> comms;  // in the order first initialised
  // "file:line: ..." for lines cut short or mixed, unknown versions, calls on communicators no init
  // line set up, ranks whose calls disagree; past a few of one kind, a line counting the rest.
  std::vector<std::string> warnings;
  int lines = 0, lines_used = 0;
  int calls_unmatched = 0;  // COLL lines naming a communicator no init line set up (left out)
};

// Every NCCL line of one file (any other output around them is skipped); `where` names it in
// messages. Errors name file:line: no NCCL line at all, no communicator initialised, an init line
// with nranks <= 0 or a rank outside it, two processes claiming one rank of a communicator on
// different devices, a call of more than limits::kMaxBytes.
Result<NcclLog> nccl_log_parse(std::string_view text, const std::string& where);
// Several files (one per rank, per host, or a launcher's merged stdout) as one log: the same
// commId in several files is one communicator.
Result<NcclLog> nccl_log_load(const std::vector<std::string>& paths);

// The periodic part of one communicator's calls: after `setup_calls` leading calls that do not
// repeat (parameter broadcasts, barriers), the rest repeats with the smallest such period,
// `repeats` times (a fraction when the log ends inside one). Up to 8 trailing calls that break the
// pattern (a final barrier) are tolerated and counted in trailing_calls. A data-parallel
// communicator reduces once per step; a tensor-parallel one repeats per micro-batch, so the fewest
// repeats over a job's communicators is its step count. Same call: same op, count, datatype, peer,
// root. period 0 (and the rest 0) when nothing repeats at least twice. O(n log n).
struct StepPattern {
  int period = 0;
  int setup_calls = 0;
  int trailing_calls = 0;
  double repeats = 0;
};
StepPattern nccl_log_pattern(const std::vector<NcclLogCall>& calls);

// Bytes per element of ncclDataType_t `datatype` (src/nccl.h.in); 0 for numbers no version up to
// 2.28 defines. fp8 (10, 11) exists from 2.24.
int nccl_log_datatype_bytes(int datatype);

}  // namespace topoplan

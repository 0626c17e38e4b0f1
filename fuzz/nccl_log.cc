// NCCL debug logs as topoplan reads them: whatever the bytes, a log that reads has communicators
// of at least one rank, members with distinct ranks below it, calls whose rank is a member and
// whose bytes are finite and within limits, and a step pattern that fits inside its calls.
#include <cmath>
#include <set>

#include "base/limits.h"
#include "fuzz/fuzz.h"
#include "observe/nccl_log.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Result<NcclLog> log = nccl_log_parse(fuzz::text(data, size), "fuzz.log");
  if (!fuzz::ok_or_explained(log)) return 0;
  if (log->comms.empty()) fuzz::violated("a log read without a communicator");
  if (log->lines_used > log->lines || log->calls_unmatched < 0) fuzz::violated("more lines used than read");
  if (log->warnings.size() > 200) fuzz::violated("warnings not bounded:", std::to_string(log->warnings.size()));
  for (const NcclLogComm& c : log->comms) {
    if (c.nranks < 1 || c.nranks > limits::kMaxRanks)
      fuzz::violated("a communicator of no ranks or too many", c.comm_id);
    if (c.members.empty() || c.comm_id.empty()) fuzz::violated("a communicator without members or id");
    std::set<int> ranks;
    for (const NcclLogRank& m : c.members) {
      if (m.rank < 0 || m.rank >= c.nranks) fuzz::violated("a member's rank outside nranks");
      if (!ranks.insert(m.rank).second) fuzz::violated("a rank listed twice");
      if (m.host.empty()) fuzz::violated("a member without a host");
    }
    if (c.calls.empty() != (c.calls_from_rank < 0) || (c.calls_from_rank >= 0 && !ranks.count(c.calls_from_rank)))
      fuzz::violated("calls_from_rank is not a member that logged the calls");
    for (const NcclLogCall& k : c.calls) {
      if (!std::isfinite(k.bytes) || k.bytes < 0 || k.bytes > limits::kMaxBytes)
        fuzz::violated("bytes not finite, >= 0 and within limits");
      if (k.op.empty()) fuzz::violated("a call without an op");
      if (k.peer >= c.nranks || k.root >= c.nranks) fuzz::violated("a peer or root outside nranks");
    }
    const StepPattern p = nccl_log_pattern(c.calls);
    const double n = static_cast<double>(c.calls.size());
    if (p.period < 0 || p.period > n || p.setup_calls < 0 || p.trailing_calls < 0 ||
        p.setup_calls + p.trailing_calls > n ||
        (p.period > 0 &&
         (p.repeats < 2 || std::abs(p.repeats * p.period + p.setup_calls + p.trailing_calls - n) > 1e-6 * n)) ||
        (p.period == 0 && p.repeats != 0))
      fuzz::violated("a step pattern that does not fit its calls");
  }
  return 0;
}

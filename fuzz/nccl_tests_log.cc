// nccl-tests logs as topoplan reads them: every run that reads has rows above zero bytes with
// finite times and rates, distinct ranks, and prints (nccl_tests_format) to a log that reads back
// as the same op and rows and prints the same again.
#include <cmath>
#include <set>

#include "fuzz/fuzz.h"
#include "validate/nccl_tests_format.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Result<NcclTestsLog> log = nccl_tests_log_parse(fuzz::text(data, size), "fuzz.log");
  if (!fuzz::ok_or_explained(log)) return 0;
  if (log->runs.empty()) fuzz::violated("a log read without a run");
  for (const NcclTestsRun& run : log->runs) {
    if (run.rows.empty()) fuzz::violated("a run without rows");
    for (const NcclTestsRow& r : run.rows)
      for (double v : {r.bytes, r.time_us, r.algbw_GBps, r.busbw_GBps, r.in_place_time_us, r.in_place_algbw_GBps,
                       r.in_place_busbw_GBps})
        if (!std::isfinite(v) || v < 0 || !(r.bytes > 0))
          fuzz::violated("a row of no bytes, or a time or rate not finite and >= 0");
    std::set<int> ranks;
    for (const NcclTestsRank& k : run.ranks)
      if (!ranks.insert(k.rank).second) fuzz::violated("a rank listed twice");
    const std::string text = nccl_tests_format(run);
    Result<NcclTestsLog> back = nccl_tests_log_parse(text, "fuzz.log");
    if (!back) fuzz::violated("what was formatted does not read:", back.error());
    if (back->runs.size() != 1 || back->runs[0].op != run.op || back->runs[0].rows.size() != run.rows.size() ||
        back->runs[0].ranks.size() != run.ranks.size())
      fuzz::violated("formatting changed the op, rows or ranks");
    if (nccl_tests_format(back->runs[0]) != text) fuzz::violated("formatting what was read back changed it");
  }
  return 0;
}

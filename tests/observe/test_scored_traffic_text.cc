#include "observe/scored_traffic_text.h"

#include <doctest/doctest.h>

namespace topoplan {
namespace {

TEST_CASE("scored_traffic_text: the communicators scored, then what was left out and why") {
  ScoredTraffic t;
  t.matched = {"0x1 (8 ranks) = tp:0", "0x2 (8 ranks) = tp:1"};
  t.unscored = {"0x3 (16 ranks): not a group of the job"};
  t.notes = {"the log lacks dp's AllReduce"};
  CHECK(scored_traffic_text("traffic.json", t) ==
        "\ntraffic from NCCL's log (traffic.json): 2 communicators scored as the job's groups\n"
        "  left out: 0x3 (16 ranks): not a group of the job\n"
        "  note: the log lacks dp's AllReduce\n");
}

}  // namespace
}  // namespace topoplan

#include "tests/planner/layout_formats/support.h"

namespace topoplan {

using test::layout_error;
using test::placed;

TEST_CASE("layout ompi-rankfile: each host's ranks take its GPUs in rank order, whatever the order of the lines") {
  CHECK(placed("# a rankfile\nrank 1=h002 slot=0:0-13\nrank 0=h002 slot=1:*\nrank 2=h001 slot=S*\n") ==
        std::vector<std::string>{"h002/gpu0", "h002/gpu1", "h001/gpu0"});
  // A line without slot= places the rank too.
  CHECK(placed("rank 0=h001\nrank 1=h001\n") == std::vector<std::string>{"h001/gpu0", "h001/gpu1"});
}

TEST_CASE("layout ompi-rankfile: malformed lines name the line and column") {
  CHECK(layout_error("rank 0=h001 slot=0:*\nrank x=h001\n") == "f:2:6: rank: expected a whole number, got 'x'");
  CHECK(layout_error("rank 0=h0001 slot=0:*\n") == "f:1:8: no host 'h0001', did you mean 'h001'?");
  CHECK(layout_error("rank 0=+n0 slot=0:*\n") ==
        "f:1:8: '+n0' is a host relative to the allocation (Open MPI's +nN); name the host");
  CHECK(layout_error("rank 0=h001 slots=0:*\n") ==
        "f:1:13: unknown key 'slots', did you mean 'slot'? (a line is rank N=HOST slot=LIST)");
  CHECK(layout_error("rank 0=h001\nrank 0=h002\n") == "f:2:6: rank 0 is placed twice (line 1 and 2)");
  CHECK(layout_error("rank 0=h001\nh002\n") ==
        "f:2:1: expected 'rank N=HOST slot=LIST', got 'h002' (a rankfile has one such line per rank)");
  CHECK(layout_error("rank 0=h001\nrank 2=h001\n") == "f: rank 1 is not placed");
  CHECK(layout_error("rank 5=h001\n", 4) == "f:1:6: rank 5: the job has 4 ranks (0-3)");
  std::string nine;
  for (int r = 0; r < 9; ++r) nine += "rank " + std::to_string(r) + "=h001\n";
  CHECK(layout_error(nine) == "f:9: rank 8 is one rank more than h001 has GPUs (8)");
}

}  // namespace topoplan

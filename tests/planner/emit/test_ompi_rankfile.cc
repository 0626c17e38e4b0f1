#include <doctest/doctest.h>

#include "planner/emit/emit.h"
#include "tests/planner/emit/cases.h"

namespace topoplan {
namespace {

std::vector<std::string> rank_lines(const test::EmitCase& c) {
  std::vector<EmittedFile> files = test::emit_ok("ompi-rankfile", c);
  REQUIRE(files.size() == 2);
  CHECK(files[0].name == "ompi.rankfile");
  CHECK(files[1].name == "ompi.hostfile");
  return test::content_lines(files[0].text);
}

}  // namespace

TEST_CASE("emit ompi-rankfile: golden files") { test::check_emit_golden("ompi-rankfile"); }

TEST_CASE("emit ompi-rankfile: each rank on its host, bound to its GPU's share of the NUMA node's cores") {
  // DGX H100: GPUs 0-3 on socket 0, 4-7 on socket 1; 56 cores per Xeon 8480C, 14 per GPU.
  auto c = test::emit_case("dgx-h100-permuted");
  std::vector<std::string> lines = rank_lines(*c);
  REQUIRE(lines.size() == 16);
  CHECK(lines[0] == "rank 0=h002 slot=0:42-55");   // h002/gpu3
  CHECK(lines[4] == "rank 4=h002 slot=1:42-55");   // h002/gpu7
  CHECK(lines[8] == "rank 8=h001 slot=0:14-27");   // h001/gpu1
  CHECK(lines[13] == "rank 13=h001 slot=1:0-13");  // h001/gpu4

  // PCIe L40S: two GPUs per PCIe switch, two switches per socket; 32 cores per Xeon 6448Y, 8 per GPU.
  auto l40s = test::emit_case("pcie-l40s-default");
  std::vector<std::string> l = rank_lines(*l40s);
  CHECK(l[3] == "rank 3=h001 slot=0:24-31");
  CHECK(l[12] == "rank 12=h002 slot=1:0-7");
}

TEST_CASE("emit ompi-rankfile: without core counts, the whole socket; without a CPU, no binding") {
  auto c = test::emit_case("explicit-graph");
  std::vector<std::string> lines = rank_lines(*c);
  CHECK(lines == std::vector<std::string>{"rank 0=n1 slot=0:*", "rank 1=n1 slot=0:*", "rank 2=n1 slot=1:*",
                                          "rank 3=n1 slot=S*", "rank 4=n2 slot=0:*", "rank 5=n2 slot=0:*",
                                          "rank 6=n2 slot=1:*", "rank 7=n2 slot=S*"});
}

TEST_CASE("emit ompi-rankfile: the hostfile gives every host as many slots as it runs ranks, in rank order") {
  auto c = test::emit_case("pcie-l40s-permuted");
  std::vector<std::string> hosts = test::content_lines(test::emit_ok("ompi-rankfile", *c)[1].text);
  CHECK(hosts == std::vector<std::string>{"h003 slots=8", "h001 slots=8", "h004 slots=8", "h002 slots=8"});
}

}  // namespace topoplan

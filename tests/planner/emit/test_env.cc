#include <doctest/doctest.h>

#include "planner/emit/emit.h"
#include "tests/planner/emit/cases.h"

namespace topoplan {

TEST_CASE("emit env: golden files") { test::check_emit_golden("env"); }

TEST_CASE("emit env: per rank its host, its GPU alone and its NIC by exact name") {
  auto dgx = test::emit_case("dgx-h100-permuted");
  std::vector<EmittedFile> files = test::emit_ok("env", *dgx);
  REQUIRE(files.size() == 1);
  CHECK(files[0].name == "ranks.env");
  std::vector<std::string> lines = test::content_lines(files[0].text);
  REQUIRE(lines.size() == 16);
  CHECK(lines[0] == "0 h002 CUDA_VISIBLE_DEVICES=3 NCCL_IB_HCA==nic3");  // rail-aligned: GPU i uses NIC i
  CHECK(lines[9] == "9 h001 CUDA_VISIBLE_DEVICES=0 NCCL_IB_HCA==nic0");

  // PCIe L40S: one NIC per pair of GPUs.
  auto l40s = test::emit_case("pcie-l40s-default");
  CHECK(test::content_lines(test::emit_ok("env", *l40s)[0].text)[3] == "3 h001 CUDA_VISIBLE_DEVICES=3 NCCL_IB_HCA==nic1");

  // A cluster file names NICs after their HCA; a GPU without a PCIe NIC takes a cabled one.
  auto lab = test::emit_case("explicit-graph");
  std::vector<std::string> l = test::content_lines(test::emit_ok("env", *lab)[0].text);
  CHECK(l[1] == "1 n1 CUDA_VISIBLE_DEVICES=1 NCCL_IB_HCA==mlx5_0");
  CHECK(l[6] == "6 n2 CUDA_VISIBLE_DEVICES=2 NCCL_IB_HCA==mlx5_1");
}

}  // namespace topoplan

#include "tests/planner/layout_formats/support.h"

namespace topoplan {

using test::layout_error;
using test::placed;

TEST_CASE("layout ranks-env: each rank on the GPU its CUDA_VISIBLE_DEVICES names") {
  CHECK(placed("# RANK HOST VARIABLES\n1 h002 CUDA_VISIBLE_DEVICES=3 NCCL_IB_HCA==mlx5_5\n0 h001 "
               "CUDA_VISIBLE_DEVICES=7\n") == std::vector<std::string>{"h001/gpu7", "h002/gpu3"});
}

TEST_CASE("layout ranks-env: malformed lines name the line and column") {
  CHECK(layout_error("0 h001\n") == "f:1:1: rank 0 has no CUDA_VISIBLE_DEVICES=N, which names its GPU");
  CHECK(layout_error("0 h001 CUDA_VISIBLE_DEVICES=0,1\n") ==
        "f:1:29: CUDA_VISIBLE_DEVICES: expected the rank's one GPU as a CUDA ordinal, got '0,1'");
  CHECK(layout_error("0 h001 CUDA_VISIBLE_DEVICES=8\n") == "f:1:29: h001 has 8 GPUs (0-7), got 8");
  CHECK(layout_error("0 h009 CUDA_VISIBLE_DEVICES=0\n") == "f:1:3: no host 'h009', did you mean 'h001'?");
  CHECK(layout_error("0 h001 CUDA_VISIBLE_DEVICES=0 stray\n") == "f:1:31: expected NAME=VALUE, got 'stray'");
  CHECK(layout_error("0 h001 CUDA_VISIBLE_DEVICES=0\n0 h002 CUDA_VISIBLE_DEVICES=0\n") ==
        "f:2:1: rank 0 is placed twice (line 1 and 2)");
  CHECK(layout_error("0 h001 CUDA_VISIBLE_DEVICES=0\n1 h001 CUDA_VISIBLE_DEVICES=0\n") ==
        "f:2: GPU h001/gpu0 already runs rank 0");
  CHECK(layout_error("0 h001 CUDA_VISIBLE_DEVICES=0\nx h001\n") ==
        "f:2:1: expected 'RANK HOST CUDA_VISIBLE_DEVICES=N ...', got 'x'");
}

}  // namespace topoplan

#include "tests/planner/layout_formats/support.h"

namespace topoplan {

using test::layout_error;
using test::placed;

TEST_CASE("layout torchrun: node K's local rank k on the k-th GPU of its CUDA_VISIBLE_DEVICES") {
  CHECK(
      placed("# HOST: the command\n"
             "h002: CUDA_VISIBLE_DEVICES=3,2 torchrun --nnodes=2 --node-rank=0 --nproc-per-node=2 --master-addr=h002\n"
             "h001: torchrun --nnodes 2 --node_rank 1 --nproc_per_node 2 --master-addr=h002 train.py --lr 1\n") ==
      std::vector<std::string>{"h002/gpu3", "h002/gpu2", "h001/gpu0", "h001/gpu1"});
}

TEST_CASE("layout torchrun: malformed lines name the line and column") {
  const std::string ok = "h001: torchrun --nnodes=2 --node-rank=0 --nproc-per-node=2\n";
  CHECK(layout_error(ok + "h002: torchrun --nnodes=2 --node-rank=0 --nproc-per-node=2\n") ==
        "f:2:1: rank 0 is placed twice (line 1 and 2)");
  CHECK(layout_error(ok + "h002: torchrun --nnodes=3 --node-rank=1 --nproc-per-node=2\n") ==
        "f:2:1: --nnodes 3 --nproc-per-node 2, the lines before say 2 and 2");
  CHECK(layout_error(ok + "h002: torchrun --nnodes=2 --node-rank=2 --nproc-per-node=2\n") ==
        "f:2:1: --node-rank 2 of --nnodes 2 (0-1)");
  CHECK(layout_error(ok + "h002: torchrun --nnodes=2 --nproc-per-node=2\n") ==
        "f:2:1: torchrun has no --node-rank, which places the host's ranks");
  CHECK(layout_error(ok + "h002: CUDA_VISIBLE_DEVICES=0,9 torchrun --nnodes=2 --node-rank=1 --nproc-per-node=2\n") ==
        "f:2:30: CUDA_VISIBLE_DEVICES: expected CUDA ordinals of h002's 8 GPUs (0-7), got '9'");
  CHECK(layout_error(ok + "h002: CUDA_VISIBLE_DEVICES=0 torchrun --nnodes=2 --node-rank=1 --nproc-per-node=2\n") ==
        "f:2:7: 2 local ranks, 1 GPUs in CUDA_VISIBLE_DEVICES");
  CHECK(layout_error("h001: torchrun --nnodes=1:2 --node-rank=0 --nproc-per-node=2\n") ==
        "f:1:16: --nnodes: expected a positive number, got '1:2' (an elastic MIN:MAX range places no rank; give one "
        "number)");
  CHECK(layout_error("h009: torchrun --nnodes=1 --node-rank=0 --nproc-per-node=2\n") ==
        "f:1:1: no host 'h009', did you mean 'h001'?");
  CHECK(layout_error(ok + "h002: echo torchrun\n") == "f:2:1: torchrun has no --nnodes, which places the host's ranks");
  CHECK(layout_error(ok) == "f: --nnodes 2, but no line runs --node-rank 1");
  CHECK(layout_error(ok + "h002: torchrun --nnodes=2 --node-rank=1 --nproc-per-node=2\n", 2) ==
        "f:2:1: node 1 runs ranks 2-3, the job has 2 ranks (0-1)");
}

TEST_CASE("layout: a Megatron-LM argument list is not a layout") {
  CHECK(layout_error("# topoplan megatron\n--num-layers 4\n") ==
        "f: this is a Megatron-LM argument list (it starts with --num-layers): give it to --job; a layout places ranks "
        "on "
        "GPUs (docs/layout-formats.md)");
}

}  // namespace topoplan

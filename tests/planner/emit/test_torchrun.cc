#include <doctest/doctest.h>

#include "planner/emit/emit.h"
#include "tests/planner/emit/cases.h"
#include "tests/support.h"

namespace topoplan {

TEST_CASE("emit torchrun: golden files") { test::check_emit_golden("torchrun", {"dgx-h100-interleaved"}); }

TEST_CASE("emit torchrun: node ranks follow the hosts' rank blocks, CUDA_VISIBLE_DEVICES the planned GPUs") {
  auto c = test::emit_case("dgx-h100-permuted");
  std::vector<EmittedFile> files = test::emit_ok("torchrun", *c);
  REQUIRE(files.size() == 1);
  CHECK(files[0].name == "torchrun.txt");
  CHECK(test::content_lines(files[0].text) ==
        std::vector<std::string>{"h002: CUDA_VISIBLE_DEVICES=3,2,1,0,7,6,5,4 torchrun --nnodes=2 --node-rank=0 "
                                 "--nproc-per-node=8 --master-addr=h002",
                                 "h001: CUDA_VISIBLE_DEVICES=1,0,3,2,5,4,7,6 torchrun --nnodes=2 --node-rank=1 "
                                 "--nproc-per-node=8 --master-addr=h002"});
}

TEST_CASE("emit torchrun: local rank k lands on the planned GPU of rank node * nproc + k") {
  auto c = test::emit_case("pcie-l40s-permuted");
  std::vector<std::string> lines = test::content_lines(test::emit_ok("torchrun", *c)[0].text);
  REQUIRE(lines.size() == 4);
  for (size_t node = 0; node < lines.size(); ++node) {
    const std::string& line = lines[node];
    std::string devices = line.substr(line.find('=') + 1, line.find(' ', line.find('=')) - line.find('=') - 1);
    std::string host = line.substr(0, line.find(':'));
    for (size_t k = 0, at = 0; k < 8; ++k, at = devices.find(',', at) + 1) {
      const Device& gpu = c->cluster.device(c->layout.gpu_of_rank[node * 8 + k]);
      CHECK(c->cluster.hosts()[static_cast<size_t>(gpu.host)].name == host);
      CHECK(std::stoi(devices.substr(at)) == gpu.local_index);
    }
  }
}

TEST_CASE("emit torchrun: hosts that interleave ranks, or hold different counts, are an error that says why") {
  auto c = test::emit_case("dgx-h100-interleaved");
  Result<std::vector<EmittedFile>> r = emit("torchrun", c->input());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error() ==
        "torchrun cannot express this layout: rank 1 is on h002, but torchrun gives node 0 (h001) the contiguous "
        "ranks 0-7; use slurm-hostfile (srun --distribution=arbitrary) or ompi-rankfile (mpirun --rankfile), which "
        "place every rank on its own");
  for (const char* other : {"slurm-hostfile", "ompi-rankfile", "env", "megatron"}) CHECK(emit(other, c->input()).ok());

  // 12 ranks on two 8-GPU hosts: 8 and 4.
  Cluster cluster = test::load_cluster("dgx-h100:2");
  Router router(cluster);
  Job job = test::small_job();
  job.parallel.tp = job.parallel.expert_tp = 4;
  job.parallel.pp = 1;
  job.parallel.dp = 3;
  Layout layout = *layout_default(cluster, 12);
  Result<std::vector<EmittedFile>> uneven = emit("torchrun", {cluster, router, job, layout});
  REQUIRE_FALSE(uneven.ok());
  INFO(uneven.error());
  CHECK(uneven.error().starts_with(
      "torchrun cannot express this layout: h001 runs 8 ranks, h002 4, and torchrun starts the same --nproc-per-node "
      "on every node; use slurm-hostfile"));
}

}  // namespace topoplan

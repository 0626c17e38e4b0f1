#include <doctest/doctest.h>

#include "planner/emit/emit.h"
#include "tests/planner/emit/cases.h"
#include "tests/support.h"

namespace topoplan {
namespace {

// megatron.args for the small job (tp 2, pp 2, dp 2) with `order` and `cp`, on two DGX H100.
std::string args_text(const std::string& order, int cp = 1) {
  Cluster cluster = test::load_cluster("dgx-h100:2");
  Router router(cluster);
  Job job = test::small_job();
  job.parallel.order = order;
  job.parallel.cp = cp;
  Layout layout = *layout_default(cluster, job_ranks(job));
  Result<std::vector<EmittedFile>> files = emit("megatron", {cluster, router, job, layout});
  REQUIRE_MESSAGE(files.ok(), (files ? "" : files.error()));
  REQUIRE(files->size() == 1);
  CHECK((*files)[0].name == "megatron.args");
  return (*files)[0].text;
}

// Its argument lines.
std::vector<std::string> args_for(const std::string& order, int cp = 1) {
  return test::content_lines(args_text(order, cp));
}

bool has(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

}  // namespace

TEST_CASE("emit megatron: golden files") { test::check_emit_golden("megatron"); }

TEST_CASE("emit megatron: the sizes as Megatron-LM names them") {
  const std::vector<std::string> sizes = args_for("tp-cp-ep-dp-pp");
  for (const char* line :
       {"--tensor-model-parallel-size 2", "--pipeline-model-parallel-size 2", "--context-parallel-size 1",
        "--expert-model-parallel-size 1", "--expert-tensor-parallel-size 2", "--sequence-parallel"})
    CHECK_MESSAGE(has(sizes, line), line);
  auto moe = test::emit_case("pcie-l40s-default");
  std::vector<std::string> lines = test::content_lines(test::emit_ok("megatron", *moe)[0].text);
  CHECK(has(lines, "--expert-model-parallel-size 4"));
  CHECK(has(lines, "--expert-tensor-parallel-size 1"));
  CHECK(has(lines, "--decoder-first-pipeline-num-layers 3"));
  CHECK(has(lines, "--decoder-last-pipeline-num-layers 5"));
  CHECK(has(lines, "--cp-comm-type all_gather"));
  auto dense = test::emit_case("dgx-h100-default");
  CHECK(
      has(test::content_lines(test::emit_ok("megatron", *dense)[0].text), "--num-virtual-stages-per-pipeline-rank 2"));
}

TEST_CASE("emit megatron: the order as a flag where Megatron has one, else initialize_model_parallel's keyword") {
  // Megatron's default, spelled in full or with the size-1 axes left out: no flag.
  CHECK_FALSE(has(args_for("tp-dp-pp"), "--use-tp-pp-dp-mapping"));
  CHECK(args_text("tp-dp-pp")
            .find("# order tp-dp-pp: the same ranks as Megatron's default (tp-cp-ep-dp-pp), no flag needed") !=
        std::string::npos);
  // tp-cp-ep-pp-dp, or an order that puts the same ranks together, is --use-tp-pp-dp-mapping.
  CHECK(has(args_for("tp-cp-ep-pp-dp"), "--use-tp-pp-dp-mapping"));
  CHECK(has(args_for("tp-pp-dp"), "--use-tp-pp-dp-mapping"));
  // Anything else needs the training script to pass the order.
  std::vector<std::string> other = args_for("tp-dp-cp-pp", 2);
  CHECK_FALSE(has(other, "--use-tp-pp-dp-mapping"));
  CHECK(has(other, "--cp-comm-type p2p"));
  CHECK(args_text("dp-tp-pp")
            .find("# order dp-tp-pp has no command-line flag: pass order=\"dp-tp-pp\" to "
                  "initialize_model_parallel (megatron/core/parallel_state.py) where "
                  "megatron/training/initialize.py calls it\n") != std::string::npos);
  CHECK(args_text("tp-pp-dp")
            .find("# order tp-pp-dp: the same ranks as tp-cp-ep-pp-dp, which --use-tp-pp-dp-mapping "
                  "selects\n") != std::string::npos);
  // The command says so too: the arguments alone would run Megatron's default order.
  Cluster cluster = test::load_cluster("dgx-h100:2");
  Router router(cluster);
  Job job = test::small_job();
  for (const char* order : {"dp-tp-pp", "tp-dp-pp"}) {
    job.parallel.order = order;
    Layout layout = *layout_default(cluster, job_ranks(job));
    Result<std::vector<EmittedFile>> files = emit("megatron", {cluster, router, job, layout});
    REQUIRE(files.ok());
    CHECK((*files)[0].notes.size() == (std::string(order) == "dp-tp-pp" ? 1u : 0u));
  }
}

}  // namespace topoplan

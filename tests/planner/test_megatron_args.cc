#include "planner/megatron_args.h"

#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "planner/emit/emit.h"
#include "planner/score.h"
#include "tests/support.h"

namespace topoplan {
namespace {

using nlohmann::json;

Job bundled(const std::string& name) {
  Result<Job> j = job_load((test::data_dir() / "jobs" / (name + ".json")).string());
  REQUIRE_MESSAGE(j.ok(), (j ? "" : j.error()));
  return std::move(*j);
}

// The fields the score reads: the job file with its name left out (the file's stem names the job
// read back), and the knobs that do nothing for this job set as the reader sets them.
json scored_fields(const Job& job) {
  json j = job_to_json(job);
  j.erase("name");
  // Without a sharded optimizer no parameters are gathered, so the flag is moot.
  if (job.parallel.zero_stage == 0) j["parallel"]["overlap_param_gather"] = false;
  return j;
}

// The smallest DGX H100 cluster that holds the job.
std::string cluster_for(const Job& job) { return "dgx-h100:" + std::to_string((job_ranks(job) + 7) / 8); }

std::string megatron_args(const Cluster& c, const Router& r, const Job& job, const Layout& layout) {
  Result<std::vector<EmittedFile>> files = emit("megatron", {c, r, job, layout});
  REQUIRE_MESSAGE(files.ok(), (files ? "" : files.error()));
  return (*files)[0].text;
}

Job read(const std::string& text, int world = 16, const std::string& where = "train.args") {
  Result<Job> j = job_from_megatron_args(text, where, {world, "the test"});
  REQUIRE_MESSAGE(j.ok(), (j ? "" : j.error()));
  return std::move(*j);
}

std::string error_of(const std::string& text, int world = 16, const std::string& where = "train.args") {
  Result<Job> j = job_from_megatron_args(text, where, {world, "the test"});
  REQUIRE_FALSE(j.ok());
  return j.error();
}

// A small dense model, every line a flag the reader needs; kSmall adds bf16 and tp 2 (lines 8 and 9).
const std::string kShape =
    "--num-layers 4\n--hidden-size 1024\n--num-attention-heads 16\n--vocab-size 32000\n--seq-length 2048\n"
    "--micro-batch-size 1\n--global-batch-size 16\n";
const std::string kSmall = kShape + "--bf16\n--tensor-model-parallel-size 2\n";
// kSmall with an odd number of layers, for a pipeline of two stages that cannot split evenly.
const std::string kFiveLayers = "--num-layers 5\n" + kSmall.substr(kSmall.find('\n') + 1);

}  // namespace

TEST_CASE(
    "megatron args: job -> megatron.args -> job is the same job and the same score, for every bundled multi-host job") {
  for (const std::string name : {"llama3-70b", "mixtral-8x7b", "deepseek-v3", "llama3-405b"}) {
    CAPTURE(name);
    const Job job = bundled(name);
    const Cluster c = test::load_cluster(cluster_for(job));
    const Router r(c);
    const Layout layout = *layout_default(c, job_ranks(job));
    const std::string text = megatron_args(c, r, job, layout);
    const Job back = read(text, job_ranks(job), "megatron.args");
    CHECK(back.name == "megatron");
    CHECK(scored_fields(back) == scored_fields(job));
    Result<JobScore> a = score_job(c, r, job, layout), b = score_job(c, r, back, layout);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(b->exposed_comm_s == a->exposed_comm_s);
    CHECK(b->step_s == a->step_s);
  }
}

TEST_CASE("megatron args: what the emitted file says about the knobs, and each read back") {
  Job job = test::small_job();
  job.parallel.tp = job.parallel.expert_tp = 8;
  job.parallel.dp = 1;
  job.parallel.overlap_grad_reduce = true;
  job.parallel.overlap_param_gather = true;
  job.parallel.tp_comm_overlap = true;
  job.parallel.bucket_params = 50000000;
  job.parallel.virtual_pipeline_stages = 2;
  job.training.recompute.granularity = Recompute::full;
  job.training.recompute.method = RecomputeMethod::block;
  job.training.recompute.num_layers = 1;
  job.training.grad_reduce_dtype = Dtype::bf16;
  job.training.exp_avg_dtype = job.training.exp_avg_sq_dtype = Dtype::bf16;
  job.model.kv_heads = 8;
  job.compute.matmul_tflops = 600;
  const Cluster c = test::load_cluster("dgx-h100:2");
  const Router r(c);
  const Layout layout = *layout_default(c, job_ranks(job));
  const std::string text = megatron_args(c, r, job, layout);
  for (const char* line :
       {"--group-query-attention\n--num-query-groups 8\n", "--kv-channels 64\n", "--use-distributed-optimizer\n",
        "--overlap-grad-reduce\n", "--overlap-param-gather\n", "--tp-comm-overlap\n", "--ddp-bucket-size 50000000\n",
        "--num-virtual-stages-per-pipeline-rank 2\n",
        "--recompute-granularity full\n--recompute-method block\n--recompute-num-layers 1\n", "--grad-reduce-in-bf16\n",
        "--use-precision-aware-optimizer\n--exp-avg-dtype bf16\n--exp-avg-sq-dtype bf16\n",
        "--micro-batch-size 1\n--global-batch-size 8\n", "--seq-length 2048\n",
        "# the interleaved schedule overlaps its sends and receives with compute",
        "# the job file's compute figures set topoplan's compute estimate; Megatron-LM has no flag for them"})
    CHECK_MESSAGE(text.find(line) != std::string::npos, line);
  CHECK(scored_fields(read(text, 16)).dump() == [&] {
    json j = scored_fields(job);
    j.erase("compute");  // no flag for it
    return j.dump();
  }());

  // Selective recomputation writes its modules; MoE the dispatcher the score assumed.
  job.training.recompute = {
      Recompute::selective, RecomputeMethod::uniform, 0, {RecomputeModule::core_attn, RecomputeModule::mlp}};
  CHECK(
      megatron_args(c, r, job, layout).find("--recompute-granularity selective\n--recompute-modules core_attn mlp\n") !=
      std::string::npos);
  CHECK(read(megatron_args(c, r, job, layout)).training.recompute.modules ==
        std::vector<RecomputeModule>{RecomputeModule::core_attn, RecomputeModule::mlp});

  // Megatron refuses --overlap-param-gather without --overlap-grad-reduce: no file can run that job.
  job.parallel.overlap_grad_reduce = false;
  Result<std::vector<EmittedFile>> refused = emit("megatron", {c, r, job, layout});
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().find("Megatron-LM refuses --overlap-param-gather without --overlap-grad-reduce") !=
        std::string::npos);
}

TEST_CASE("megatron args: MoE flags, the layer pattern and the dispatcher") {
  const Job deepseek = bundled("deepseek-v3");
  const Cluster c = test::load_cluster(cluster_for(deepseek));
  const Router r(c);
  const std::string text = megatron_args(c, r, deepseek, *layout_default(c, job_ranks(deepseek)));
  for (const char* line : {"--num-experts 256\n", "--moe-router-topk 8\n", "--moe-ffn-hidden-size 2048\n",
                           "--moe-layer-freq [0]*3+[1]*58\n", "--moe-shared-expert-intermediate-size 2048\n",
                           "--moe-token-dispatcher-type alltoall\n", "--decoder-first-pipeline-num-layers 3\n"})
    CHECK_MESSAGE(text.find(line) != std::string::npos, line);
  // Megatron's own pattern syntax, parentheses and all.
  const std::string moe = kSmall +
                          "--num-experts 4\n--expert-model-parallel-size 2\n--sequence-parallel\n"
                          "--moe-token-dispatcher-type alltoall\n";
  CHECK(read(moe + "--moe-layer-freq ([1]*1+[0]*1)*2\n").model.moe.layer_pattern == std::vector<int>{1, 0, 1, 0});
  CHECK(read(moe + "--moe-layer-freq 2\n").model.moe.layer_freq == 2);
  CHECK(read(moe).model.moe.top_k == 2);  // Megatron's default
  CHECK(read(moe + "--moe-expert-capacity-factor 1.5 --moe-pad-expert-input-to-capacity").model.moe.capacity_factor ==
        1.5);
  CHECK(error_of(moe + "--moe-layer-freq [1,0,1]\n") ==
        "train.args:14: --moe-layer-freq: expected a list of 4 entries (one per model.layers), got 3");
  CHECK(error_of(moe + "--moe-layer-freq [1]*2+\n") ==
        "train.args:14: --moe-layer-freq: '[1]*2+': column 7: expected '[' or '('");
  CHECK(error_of(kSmall + "--num-experts 4\n--expert-model-parallel-size 2\n--sequence-parallel\n") ==
        "train.args:11: --expert-model-parallel-size: with expert parallelism Megatron's default token dispatcher is "
        "allgather; topoplan models the all-to-all one: add --moe-token-dispatcher-type alltoall");
  CHECK(
      error_of(moe + "--moe-expert-capacity-factor 1.0\n") ==
      "train.args:14: --moe-expert-capacity-factor: without --moe-pad-expert-input-to-capacity Megatron sends only the "
      "tokens routed, up to the capacity; topoplan counts every expert's full capacity, as padding does: add "
      "--moe-pad-expert-input-to-capacity");
  CHECK(error_of(moe + "--moe-shared-expert-intermediate-size 1000\n") ==
        "train.args:14: --moe-shared-expert-intermediate-size: 1000 is not a whole number of experts of "
        "--moe-ffn-hidden-size 4096 (topoplan counts shared experts of the routed experts' size)");
}

TEST_CASE("megatron args: Megatron's defaults, not a job file's") {
  const Job j = read(kSmall);
  CHECK(j.parallel.dp == 8);  // the world of 16 over tp 2
  CHECK(j.model.kv_heads == 16);
  CHECK(j.model.ffn_hidden == 4096);
  CHECK_FALSE(j.model.swiglu);
  CHECK_FALSE(j.parallel.overlap_grad_reduce);
  CHECK_FALSE(j.parallel.overlap_param_gather);
  CHECK(j.parallel.zero_stage == 0);
  CHECK(j.training.grad_reduce_dtype == Dtype::fp32);  // bf16 accumulates in fp32
  CHECK(j.parallel.order == kDefaultOrder);
  // A gated MLP's default width: 2/3 of 4h, rounded down to 64 (arguments.py).
  CHECK(read(kSmall + "--swiglu").model.ffn_hidden == 2688);
  CHECK(read(kShape + "--fp16").training.grad_reduce_dtype == Dtype::fp16);
  CHECK(read(kShape + "--fp16 --accumulate-allreduce-grads-in-fp32").training.grad_reduce_dtype == Dtype::fp32);
  CHECK(read(kShape).training.dtype == Dtype::fp32);
  // Adam's state: narrower only with the precision-aware optimizer; the dtype flags alone do nothing.
  CHECK(read(kSmall + "--exp-avg-dtype bf16").training.exp_avg_dtype == Dtype::fp32);
  const Job narrow = read(kSmall + "--use-precision-aware-optimizer --main-params-dtype fp16 --exp-avg-dtype bf16 "
                                   "--exp-avg-sq-dtype fp8");
  CHECK(narrow.training.main_params_dtype == Dtype::fp16);
  CHECK(narrow.training.exp_avg_dtype == Dtype::bf16);
  CHECK(narrow.training.exp_avg_sq_dtype == Dtype::fp8);
  CHECK(read(kSmall + "--fp8-format hybrid").training.dtype == Dtype::fp8);
  CHECK(read(kSmall + "--recompute-activations").training.recompute.granularity == Recompute::selective);
  CHECK(read(kSmall + "--use-tp-pp-dp-mapping").parallel.order == "tp-cp-ep-pp-dp");
  CHECK(read(kSmall + "--use-megatron-fsdp").parallel.zero_stage == 3);
  CHECK(read(kSmall + "--use-megatron-fsdp --data-parallel-sharding-strategy optim_grads").parallel.zero_stage == 2);
  CHECK(read(kSmall + "--cp-comm-type all_gather all_gather --context-parallel-size 2").parallel.cp_comm ==
        CpComm::allgather);
  // Without the tensor-parallel size the global batch defaults to micro-batch x dp.
  CHECK(read("--num-layers 4 --hidden-size 1024 --num-attention-heads 16 --vocab-size 32000 --seq-length 2048 "
             "--micro-batch-size 2")
            .training.global_batch == 32);
  // The older way to give virtual stages: layers per virtual stage.
  CHECK(read(kSmall + "--pipeline-model-parallel-size 2 --num-layers-per-virtual-pipeline-stage 1")
            .parallel.virtual_pipeline_stages == 2);
  // Megatron-Core's layout: the virtual stages, and a first stage of its own split over them.
  const Job laid =
      read(kFiveLayers + "--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout 'Et|t|t*2|tL'");
  CHECK(laid.parallel.virtual_pipeline_stages == 2);
  CHECK(laid.parallel.first_stage_layers == 3);
  CHECK(laid.parallel.last_stage_layers == 2);
}

TEST_CASE("megatron args: a launch line, with its world size from torchrun or WORLD_SIZE") {
  const std::string line =
      "#!/bin/bash\n"
      "# train.sh\n"
      "CUDA_DEVICE_MAX_CONNECTIONS=1 NCCL_DEBUG=WARN torchrun --nnodes=2 --nproc-per-node 8 --rdzv-backend c10d \\\n"
      "    --rdzv-endpoint h001:29500 pretrain_gpt.py \\\n"
      "    --num-layers 4 --hidden-size 1024 \\\n"
      "    --num-attention-heads 16 --vocab-size 32000 \\\n"
      "    --seq-length=2048 --micro-batch-size 1 --global-batch-size 16 --bf16 \\\n"
      "    --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 \\\n"
      "    --data-path \"$DATA\" 0.5 /data/b --lr 3e-4 --tokenizer-type 'HuggingFaceTokenizer' \\\n"
      "    --save /ckpt --log-interval 10 --use-distributed-optimizer\n";
  Result<Job> j = job_from_megatron_args(line, "train.sh", {});
  REQUIRE_MESSAGE(j.ok(), (j ? "" : j.error()));
  CHECK(j->name == "train");
  CHECK(j->parallel.dp == 4);  // 2 nodes x 8 over tp 2 x pp 2
  CHECK(j->parallel.zero_stage == 1);
  // The file's world wins over the command's.
  CHECK(job_from_megatron_args(line, "train.sh", {64, "the test"})->parallel.dp == 4);
  // python -m torch.distributed.run, --standalone, and WORLD_SIZE for a plain python line.
  const std::string args = kSmall.substr(0, kSmall.size());
  auto flat = [](std::string s) {
    for (char& ch : s)
      if (ch == '\n') ch = ' ';
    return s;
  };
  CHECK(job_from_megatron_args(
            "python -m torch.distributed.run --standalone --nproc_per_node=8 pretrain_gpt.py " + flat(args), "x.sh", {})
            ->parallel.dp == 4);
  CHECK(job_from_megatron_args("WORLD_SIZE=32 python pretrain_gpt.py " + flat(args), "x.sh", {})->parallel.dp == 16);
}

TEST_CASE("megatron args: malformed input names the file, the line and the flag") {
  struct Case {
    std::string text, error;
  };
  const std::vector<Case> cases = {
      {kSmall + "--frobnicate 3\n",
       "train.args:10: --frobnicate: not a flag topoplan knows; it may change the traffic, so "
       "the job is not built without knowing it (docs/job-format.md lists the flags read, "
       "ignored and refused)"},
      {kSmall + "--num-layer 4\n",
       "train.args:10: --num-layer: not a flag topoplan knows; it may change the traffic, so "
       "the job is not built without knowing it, did you mean '--num-layers'? (docs/job-format.md "
       "lists the flags read, ignored and refused)"},
      {kSmall + "--fp8-param-gather\n",
       "train.args:10: --fp8-param-gather: gathers parameters in fp8: half the bytes the model sends; the model does "
       "not "
       "follow it, so topoplan cannot score this job"},
      {"--num-layers\n" + kSmall.substr(kSmall.find('\n') + 1), "train.args:1: --num-layers: a value is missing"},
      {"--num-layers 80x\n" + kSmall.substr(kSmall.find('\n') + 1),
       "train.args:1: --num-layers: expected a whole number, got '80x'"},
      {"--num-layers 4 8\n" + kSmall.substr(kSmall.find('\n') + 1),
       "train.args:1: --num-layers: takes one value, got '4' and '8'"},
      {kSmall + "--swiglu yes\n", "train.args:10: --swiglu: takes no value, got 'yes'"},
      {kSmall + "--pipeline-model-parallel-size $PP\n",
       "train.args:10: --pipeline-model-parallel-size: '$PP' (the shell would expand it; topoplan reads the command as "
       "written: write the value out)"},
      {kSmall.substr(kSmall.find('\n') + 1),
       "train.args: --num-layers is missing: it gives the number of transformer layers"},
      {"--num-layers 4 --hidden-size 1024 --num-attention-heads 16 --seq-length 2048 --micro-batch-size 1",
       "train.args: --vocab-size is missing: it gives the vocabulary size (topoplan does not read tokenizer files: add "
       "the tokenizer's vocabulary size)"},
      {kSmall + "--tensor-model-parallel-size 3\n",
       "train.args: the world size 16 (the test) is not divisible by tp x cp x pp = 3 x 1 x 1 = 3"},
      {kSmall + "--pipeline-model-parallel-size 8\n",
       "train.args:10: --pipeline-model-parallel-size: 4 layers are not divisible by pp 8"},
      {kSmall + "--global-batch-size 12\n",
       "train.args:10: --global-batch-size: 12 is not divisible by micro_batch x dp = 1 x 8 = 8"},
      {kSmall + "--recompute-granularity full\n",
       "train.args:10: --recompute-granularity: required with recompute \"full\": \"uniform\" or \"block\""},
      {kSmall + "--recompute-granularity partial\n",
       "train.args:10: --recompute-granularity: expected one of full, selective, got 'partial'"},
      {kSmall + "--use-precision-aware-optimizer --main-params-dtype bf16\n",
       "train.args:10: --main-params-dtype: expected one of fp32, fp16, got 'bf16'"},
      {kSmall + "--num-query-groups 4\n",
       "train.args:10: --num-query-groups: Megatron-LM reads it only with --group-query-attention (without it every "
       "head "
       "has its own key and value); add --group-query-attention or drop it"},
      {kSmall + "--overlap-param-gather\n",
       "train.args:10: --overlap-param-gather: Megatron-LM runs it only with the distributed optimizer or Megatron "
       "FSDP, "
       "and with --overlap-grad-reduce (arguments.py)"},
      {kSmall +
           "--pipeline-model-parallel-size 2 --num-virtual-stages-per-pipeline-rank 2 --no-overlap-p2p-communication\n",
       "train.args:10: --no-overlap-p2p-communication: the interleaved schedule's sends and receives then block; "
       "topoplan's model overlaps them with the next chunk's compute, as Megatron does by default"},
      {kFiveLayers + "--pipeline-model-parallel-size 2 --num-virtual-stages-per-pipeline-rank 2 "
                     "--decoder-first-pipeline-num-layers 3\n",
       "train.args:10: --decoder-first-pipeline-num-layers: 3 layers are not divisible by the 2 virtual stages per "
       "pipeline rank (Megatron's TransformerConfig); --pipeline-model-parallel-layout takes such a split"},
      {kSmall + "--pipeline-model-parallel-size 2 --num-virtual-stages-per-pipeline-rank 2 "
                "--pipeline-model-parallel-layout Et|t|t|tL\n",
       "train.args:10: --pipeline-model-parallel-layout: give it or --num-virtual-stages-per-pipeline-rank, not both "
       "(arguments.py, TransformerConfig)"},
      {kSmall + "--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout Et|t|t|t\n",
       "train.args:10: --pipeline-model-parallel-layout: the loss 'L' must come once, last"},
      {kSmall + "--cp-comm-type a2a --context-parallel-size 2\n",
       "train.args:10: --cp-comm-type: 'a2a': topoplan models p2p and all_gather"},
      {kSmall + "--data-path 'unclosed\n", "train.args:10: a ' quote is never closed"},

      {"torchrun --nnodes 1:4 --nproc-per-node 8 pretrain_gpt.py " + kSmall,
       "train.args:1: torchrun --nnodes 1:4: an elastic range has no one world size; give one number"},
      {"torchrun --nnodes 2 --nproc-per-node gpu pretrain_gpt.py " + kSmall,
       "train.args:1: torchrun --nproc-per-node: expected a positive whole number, got 'gpu' (give the GPUs per node)"},
      {"bash run.sh\n",
       "train.args:1: expected Megatron-LM arguments (--num-layers ...) or a launch line that runs a "
       "training script (torchrun ... pretrain_gpt.py ...), got 'bash'"},
      {"pretrain_gpt.py 8 --num-layers 4", "train.args:1: expected a flag (--name), got '8'"},
      {kSmall + "--fp16\n", "train.args:10: --fp16: --bf16 and --fp16 are both given; Megatron takes one"},
      {"torchrun --nproc-per-node 8 pretrain_gpt.py --lr 1 > log.txt",
       "train.args:1: '>' joins shell commands; give one "
       "launch line or the arguments alone (docs/job-format.md)"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    CHECK(error_of(c.text) == c.error);
  }
  // No world size from the file or the command: what to add.
  CHECK(error_of(kSmall, 0) ==
        "train.args: the world size is not given, and Megatron-LM derives the data-parallel size from it: launch with "
        "torchrun --nnodes N --nproc-per-node K, put WORLD_SIZE=N before the command, or let the command decide (plan "
        "--nodes, score --layout; docs/job-format.md)");
}

TEST_CASE("megatron args: job_load tells them from JSON by content") {
  const auto dir = test::temp_dir("megatron-args");
  const std::string path = (dir / "megatron.args").string();
  std::ofstream(path) << "# a comment\n" << kSmall;
  Result<Job> j = job_load(path, [] { return Result<WorldHint>(WorldHint{32, "the test"}); });
  REQUIRE_MESSAGE(j.ok(), (j ? "" : j.error()));
  CHECK(j->parallel.dp == 16);
  CHECK(job_load(path).error().find(path + ": the world size is not given") == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("megatron args: every flag is in one table, and the tables hold Megatron's spellings") {
  std::set<std::string> seen;
  for (const auto* table : {&megatron_flags_read(), &megatron_flags_ignored(), &megatron_flags_refused()})
    for (const std::string& f : *table) {
      CHECK_MESSAGE(f.starts_with("--"), f);
      CHECK_MESSAGE(seen.insert(f).second, f << " is in two tables");
    }
  // docs/job-format.md lists every one of them.
  const std::string doc = test::read_file(test::source_dir() / "docs" / "job-format.md");
  for (const std::string& f : seen)
    CHECK_MESSAGE(doc.find("`" + f) != std::string::npos, f << " is not in docs/job-format.md");
  CHECK(megatron_args_detect("--num-layers 4"));
  CHECK(megatron_args_detect("torchrun --nnodes 2 pretrain_gpt.py --num-layers 4"));
  CHECK_FALSE(megatron_args_detect("{\"model\": {}}"));
  CHECK_FALSE(megatron_args_detect("  [1, 2]"));
  CHECK_FALSE(megatron_args_detect("no flags here"));
}

}  // namespace topoplan

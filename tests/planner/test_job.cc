#include "planner/job.h"

#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <tuple>

#include "tests/support.h"

namespace topoplan {
namespace {

using nlohmann::json;

Job load(const std::string& name) {
  Result<Job> j = job_load((test::data_dir() / "jobs" / (name + ".json")).string());
  REQUIRE_MESSAGE(j.ok(), (j ? "" : j.error()));
  return std::move(*j);
}

// A small valid Llama-like job; each case below patches it (RFC 7386: null removes a key).
json base_doc() {
  return json::parse(R"({
    "model": {"layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8, "vocab": 128256},
    "training": {"seq_length": 8192, "global_batch": 128},
    "parallel": {"tp": 8, "pp": 4, "dp": 4}
  })");
}

Result<Job> patched(const std::string& patch) {
  json doc = base_doc();
  doc.merge_patch(json::parse(patch));
  return job_from_json(doc, "llama.json");
}

Job valid(const std::string& patch) {
  Result<Job> j = patched(patch);
  REQUIRE_MESSAGE(j.ok(), (j ? "" : j.error()));
  return std::move(*j);
}

std::string error_of(const std::string& patch) {
  Result<Job> j = patched(patch);
  REQUIRE_FALSE(j.ok());
  return j.error();
}

std::vector<int> counts_of(const std::vector<StageLayers>& stages) {
  std::vector<int> v;
  for (const StageLayers& s : stages) v.push_back(s.count);
  return v;
}

std::vector<int> firsts_of(const std::vector<StageLayers>& stages) {
  std::vector<int> v;
  for (const StageLayers& s : stages) v.push_back(s.first);
  return v;
}

std::vector<int> moe_of(const std::vector<StageLayers>& stages) {
  std::vector<int> v;
  for (const StageLayers& s : stages) v.push_back(s.moe);
  return v;
}

// Every field of a Job, so a round trip that drops or changes any of them fails.
void check_same(const Job& a, const Job& b) {
  auto moe = [](const MoeShape& m) {
    return std::tie(m.experts, m.top_k, m.layer_freq, m.layer_pattern, m.ffn_hidden, m.shared_experts,
                    m.capacity_factor);
  };
  auto model = [](const ModelShape& m) {
    return std::tie(m.layers, m.hidden, m.ffn_hidden, m.heads, m.kv_heads, m.head_dim, m.vocab, m.swiglu);
  };
  auto training = [](const Training& t) {
    return std::tie(t.seq_length, t.micro_batch, t.global_batch, t.dtype, t.grad_reduce_dtype, t.main_params_dtype,
                    t.exp_avg_dtype, t.exp_avg_sq_dtype, t.recompute.granularity, t.recompute.method,
                    t.recompute.num_layers, t.recompute.modules);
  };
  auto parallel = [](const Parallelism& p) {
    return std::tie(p.tp, p.cp, p.pp, p.dp, p.ep, p.expert_tp, p.sequence_parallel, p.zero_stage, p.fsdp,
                    p.virtual_pipeline_stages, p.first_stage_layers, p.last_stage_layers, p.cp_comm, p.order,
                    p.overlap_grad_reduce, p.overlap_param_gather, p.bucket_params, p.tp_comm_overlap);
  };
  CHECK(a.name == b.name);
  CHECK(model(a.model) == model(b.model));
  CHECK(moe(a.model.moe) == moe(b.model.moe));
  CHECK(training(a.training) == training(b.training));
  CHECK(parallel(a.parallel) == parallel(b.parallel));
  CHECK(a.compute.peak_tflops == b.compute.peak_tflops);
  CHECK(a.compute.matmul_tflops == b.compute.matmul_tflops);
  CHECK(a.compute.attention_tflops == b.compute.attention_tflops);
  CHECK(a.compute.hbm_GBps == b.compute.hbm_GBps);
  CHECK(a.compute.sms == b.compute.sms);
  CHECK(a.compute.memory_bytes == b.compute.memory_bytes);
}

void check_round_trip(const Job& job) {
  CAPTURE(job.name);
  json doc = job_to_json(job);
  Result<Job> back = job_from_json(doc, "x");
  REQUIRE_MESSAGE(back.ok(), (back ? "" : back.error()));
  check_same(job, *back);
}

}  // namespace

TEST_CASE("job: dtype and cp_comm names") {
  CHECK(to_string(Dtype::fp8) == "fp8");
  CHECK(dtype_from("fp16") == Dtype::fp16);
  CHECK(dtype_from("bfloat16") == std::nullopt);
  CHECK(dtype_bytes(Dtype::bf16) == 2);
  CHECK(dtype_bytes(Dtype::fp16) == 2);
  CHECK(dtype_bytes(Dtype::fp8) == 1);
  CHECK(dtype_bytes(Dtype::fp32) == 4);
  CHECK(to_string(CpComm::allgather) == "allgather");
  CHECK(to_string(CpComm::p2p) == "p2p");
}

TEST_CASE("job: left-out fields take Megatron's defaults") {
  Job j = *job_from_json(base_doc(), "data/jobs/llama.json");
  CHECK(j.name == "llama");  // the file stem
  CHECK(j.model.ffn_hidden == 4 * 8192);
  CHECK(j.model.swiglu);
  CHECK_FALSE(j.model.is_moe());
  CHECK(j.training.micro_batch == 1);
  CHECK(j.training.dtype == Dtype::bf16);
  CHECK(j.training.grad_reduce_dtype == Dtype::fp32);
  CHECK(j.parallel.cp == 1);
  CHECK(j.parallel.ep == 1);
  CHECK(j.parallel.expert_tp == 8);  // = tp
  CHECK_FALSE(j.parallel.sequence_parallel);
  CHECK(j.parallel.zero_stage == 0);
  CHECK_FALSE(j.parallel.fsdp);
  CHECK(j.parallel.virtual_pipeline_stages == 1);
  CHECK(j.parallel.cp_comm == CpComm::p2p);
  CHECK(j.parallel.order == kDefaultOrder);
  CHECK(j.parallel.overlap_grad_reduce);
  CHECK(j.parallel.overlap_param_gather);
  CHECK(j.parallel.bucket_params == 0);
  CHECK(j.training.attention_backend == AttentionBackend::flash);
  CHECK_FALSE(j.compute.peak_tflops.has_value());
  CHECK_FALSE(j.compute.matmul_tflops.has_value());

  Job m = valid(R"({"model": {"ffn_hidden": 28672, "moe": {"experts": 8, "top_k": 2}}})");
  CHECK(m.model.moe.ffn_hidden == 28672);  // model.ffn_hidden
  CHECK(m.model.moe.layer_freq == 1);
  CHECK(m.model.moe.shared_experts == 0);
  CHECK(m.model.moe.capacity_factor == 0);

  // fsdp alone implies ZeRO stage 3; Megatron drops sequence parallelism without tensor parallelism.
  CHECK(valid(R"({"parallel": {"fsdp": true}})").parallel.zero_stage == 3);
  CHECK(valid(R"({"parallel": {"fsdp": true, "zero_stage": 3}})").parallel.zero_stage == 3);
  CHECK_FALSE(valid(R"({"parallel": {"tp": 1, "dp": 32, "sequence_parallel": true}})").parallel.sequence_parallel);
  CHECK(valid(R"({"parallel": {"sequence_parallel": true}})").parallel.sequence_parallel);
}

TEST_CASE("job: the example jobs load with their hand-checked sizes") {
  SUBCASE("llama3-70b: interleaved pipeline, 5 chunks per stage") {
    Job j = load("llama3-70b");
    CHECK(j.name == "llama3-70b");
    CHECK(job_ranks(j) == 128);         // 8 x 1 x 4 x 4
    CHECK(job_expert_dp(j) == 4);       // 128 / (expert_tp 8 x ep 1 x pp 4)
    CHECK(job_micro_batches(j) == 32);  // 128 / (1 x 4)
    std::vector<StageLayers> s = job_stages(j);
    // 80 layers in 4 x 5 chunks of 4: stage 0 owns 0-3, 16-19, 32-35, 48-51, 64-67.
    CHECK(counts_of(s) == std::vector<int>{20, 20, 20, 20});
    CHECK(firsts_of(s) == std::vector<int>{0, 4, 8, 12});
    CHECK(moe_of(s) == std::vector<int>{0, 0, 0, 0});
    CHECK(job_fits(j, 128).ok());
    CHECK(job_fits(j, 64).error() == "the job needs 128 GPUs (tp 8 x cp 1 x pp 4 x dp 4), the cluster has 64");
  }
  SUBCASE("llama3-405b: one layer fewer on the first and last stage, interleaved") {
    Job j = load("llama3-405b");
    CHECK(job_ranks(j) == 16384);       // 8 x 1 x 16 x 128
    CHECK(job_expert_dp(j) == 128);     // 16384 / (8 x 1 x 16)
    CHECK(job_micro_batches(j) == 16);  // 2048 / 128
    std::vector<StageLayers> s = job_stages(j);
    // (126 - 7 - 7) / 14 = 8 on each middle stage.
    std::vector<int> counts(16, 8);
    counts.front() = counts.back() = 7;
    CHECK(counts_of(s) == counts);
    // Eight chunks of one layer each in the middle; the first stage's first chunk holds the
    // embedding alone, the last stage's last chunk the loss alone.
    const std::vector<std::vector<int>> chunks = job_stage_chunks(j);
    CHECK(chunks.front() == std::vector<int>{0, 1, 1, 1, 1, 1, 1, 1});
    CHECK(chunks[1] == std::vector<int>(8, 1));
    CHECK(chunks.back() == std::vector<int>{1, 1, 1, 1, 1, 1, 1, 0});
    CHECK(s[1].first == 0);
    CHECK(s[15].first == 14);  // 0 + 14 x 1 in the first round; 15 layers in it
  }
  SUBCASE("mixtral-8x7b: every layer MoE, experts over ep 8") {
    Job j = load("mixtral-8x7b");
    CHECK(job_ranks(j) == 64);          // 1 x 1 x 4 x 16
    CHECK(job_expert_dp(j) == 2);       // 64 / (expert_tp 1 x ep 8 x pp 4)
    CHECK(job_micro_batches(j) == 16);  // 256 / 16
    CHECK(j.model.moe.ffn_hidden == 14336);
    CHECK(moe_of(job_stages(j)) == std::vector<int>{8, 8, 8, 8});
    CHECK(counts_of(job_stages(j)) == std::vector<int>{8, 8, 8, 8});
  }
  SUBCASE("deepseek-v3: three dense layers first, uneven first and last stage") {
    Job j = load("deepseek-v3");
    CHECK(job_ranks(j) == 2048);         // 2 x 1 x 16 x 64
    CHECK(job_expert_dp(j) == 2);        // 2048 / (1 x 64 x 16)
    CHECK(job_micro_batches(j) == 128);  // 8192 / 64
    CHECK_FALSE(job_layer_is_moe(j, 2));
    CHECK(job_layer_is_moe(j, 3));
    CHECK(job_layer_is_moe(j, 60));
    std::vector<StageLayers> s = job_stages(j);
    // (61 - 3 - 2) / 14 = 4 on each middle stage; stage 0 holds layers 0-2, all dense.
    std::vector<int> counts(16, 4), moe(16, 4);
    counts.front() = 3, counts.back() = 2;
    moe.front() = 0, moe.back() = 2;
    CHECK(counts_of(s) == counts);
    CHECK(moe_of(s) == moe);
    CHECK(s[15].first == 59);  // 3 + 14 x 4
    CHECK(job_fits(j, 2048).ok());
  }
}

TEST_CASE("job: MoE layers by frequency, counted over the interleaved chunks a stage owns") {
  Job j = valid(R"({"model": {"moe": {"experts": 8, "top_k": 2, "layer_freq": 3}},
                    "parallel": {"virtual_pipeline_stages": 5}})");
  CHECK(job_layer_is_moe(j, 0));
  CHECK_FALSE(job_layer_is_moe(j, 1));
  CHECK(job_layer_is_moe(j, 78));
  CHECK_FALSE(job_layer_is_moe(valid("{}"), 0));  // dense
  // MoE layers are multiples of 3. Stage 0 owns 0-3, 16-19, 32-35, 48-51, 64-67:
  // {0,3} {18} {33} {48,51} {66} = 7. Stage 1 owns 4-7, 20-23, 36-39, 52-55, 68-71:
  // {6} {21} {36,39} {54} {69} = 6 (7 if it owned 20-39). Stage 2: {9} {24,27} {42} {57} {72,75} = 7;
  // stage 3: {12,15} {30} {45} {60,63} {78} = 7; 27 in all (0..78 step 3).
  CHECK(moe_of(job_stages(j)) == std::vector<int>{7, 6, 7, 7});
  CHECK(firsts_of(job_stages(j)) == std::vector<int>{0, 4, 8, 12});

  // Uneven and interleaved: first and last stage 8 layers, middle (80 - 16) / 2 = 32, over 2
  // chunks of 40 layers: stage 0 owns 0-3 and 40-43, stage 1 4-19 and 44-59.
  Job u = valid(R"({"model": {"moe": {"experts": 8, "top_k": 2, "layer_freq": 3}},
                    "parallel": {"virtual_pipeline_stages": 2, "first_stage_layers": 8, "last_stage_layers": 8}})");
  CHECK(counts_of(job_stages(u)) == std::vector<int>{8, 32, 32, 8});
  CHECK(firsts_of(job_stages(u)) == std::vector<int>{0, 4, 20, 36});
  // Multiples of 3: stage 0 {0,3} {42}, stage 1 {6..18: 5} {45..57: 5}, stage 2 {21..33: 5}
  // {60..75: 6}, stage 3 {36,39} {78}; without interleaving stages 1 and 2 would have 11 and 10.
  CHECK(moe_of(job_stages(u)) == std::vector<int>{3, 10, 11, 3});
}

TEST_CASE("job: job_to_json round-trips every field") {
  for (const char* name : {"llama3-70b", "llama3-405b", "mixtral-8x7b", "deepseek-v3"}) check_round_trip(load(name));
  // Every field away from its default, so none can be dropped unnoticed.
  Job j = valid(R"({"name": "everything", "model": {"ffn_hidden": 28672, "kv_heads": 16, "swiglu": false,
                     "moe": {"experts": 16, "top_k": 4, "layer_freq": 2, "ffn_hidden": 1024, "shared_experts": 2,
                             "capacity_factor": 1.25}},
                    "training": {"micro_batch": 2, "global_batch": 256, "dtype": "fp8", "grad_reduce_dtype": "bf16",
                                 "main_params_dtype": "fp16", "exp_avg_dtype": "bf16", "exp_avg_sq_dtype": "fp8",
                                 "attention_backend": "unfused"},
                    "parallel": {"cp": 2, "dp": 2, "ep": 4, "expert_tp": 4, "sequence_parallel": true, "fsdp": true,
                                 "virtual_pipeline_stages": 2, "first_stage_layers": 10, "last_stage_layers": 10,
                                 "cp_comm": "allgather", "order": "tp-cp-ep-pp-dp", "overlap_grad_reduce": false,
                                 "overlap_param_gather": false, "bucket_params": 40000000},
                    "compute": {"peak_tflops": 989, "matmul_tflops": 700, "attention_tflops": 500, "hbm_GBps": 3350,
                                "sms": 132, "memory": "80GiB"}})");
  check_round_trip(j);
  check_round_trip(valid(R"({"training": {"recompute": "full", "recompute_method": "block", "recompute_num_layers": 3},
                             "parallel": {"sequence_parallel": true, "tp_comm_overlap": true}})"));
  check_round_trip(valid(R"({"training": {"recompute": "selective", "recompute_modules": ["mlp", "layernorm"]}})"));
  // Qwen3's decoupled heads: hidden 8100 need not divide over them.
  check_round_trip(valid(R"({"model": {"hidden": 8100, "head_dim": 128}})"));
  CHECK(valid("{}").model.head_dim == 128);  // 8192 / 64 when left out
  // Megatron-Core's default selective module.
  CHECK(valid(R"({"training": {"recompute": "selective"}})").training.recompute.modules ==
        std::vector<RecomputeModule>{RecomputeModule::core_attn});
  CHECK(job_to_json(j).at("model").at("moe").at("layer_freq") == 2);
  CHECK(job_to_json(load("deepseek-v3")).at("model").at("moe").at("layer_freq").size() == 61);
  CHECK_FALSE(job_to_json(load("llama3-70b")).at("model").contains("moe"));
  CHECK_FALSE(job_to_json(load("llama3-70b")).contains("compute"));
}

TEST_CASE("job: files: syntax errors give line and column, the name defaults to the file stem") {
  auto dir = test::temp_dir("job");
  std::string bad = (dir / "bad.json").string();
  // Line 2 is `  "model": {"layers": 80,}`: the '}' after the comma is column 26.
  std::ofstream(bad) << "{\n  \"model\": {\"layers\": 80,}\n}\n";
  CHECK(job_load(bad).error() ==
        bad + ":2:26: syntax error while parsing object key - unexpected '}'; expected string literal");
  std::string good = (dir / "my-job.json").string();
  std::ofstream(good) << base_doc().dump();
  CHECK(job_load(good)->name == "my-job");
  CHECK(job_load((dir / "none.json").string()).error().starts_with((dir / "none.json").string() + ": cannot read"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("job: malformed jobs name the file, the field and what was expected") {
  std::vector<int> pattern(80, 1);
  pattern[5] = 2;
  const std::string bad_pattern =
      R"({"model": {"moe": {"experts": 8, "top_k": 2, "layer_freq": )" + json(pattern).dump() + "}}}";
  const std::pair<std::string, std::string> cases[] = {
      // Types, keys and ranges.
      {R"({"model": {"layers": "80"}})", R"(llama.json: model.layers: expected an integer from 1 to 100000, got "80")"},
      {R"({"model": {"layers": 1000000000000}})",
       "llama.json: model.layers: expected an integer from 1 to 100000, got 1000000000000"},
      {R"({"modle": {}})", "llama.json: unknown key 'modle', did you mean 'model'?"},
      {R"({"parallel": {"sequence_paralel": true}})",
       "llama.json: parallel: unknown key 'sequence_paralel', did you mean 'sequence_parallel'?"},
      {R"({"training": {"global_batch": null}})", "llama.json: training: missing key 'global_batch'"},
      {R"({"format": "topoplan-cluster"})", R"(llama.json: format: expected "topoplan-job", got "topoplan-cluster")"},
      {R"({"training": {"dtype": "bf61"}})",
       R"(llama.json: training.dtype: expected one of "bf16", "fp16", "fp8", "fp32", got "bf61", did you mean 'bf16'?)"},
      {R"({"training": {"main_params_dtype": "fp8"}})",
       R"(llama.json: training.main_params_dtype: expected one of "fp32", "bf16", "fp16", got "fp8")"},
      {R"({"parallel": {"cp_comm": "all_gather"}})",
       R"(llama.json: parallel.cp_comm: expected one of "p2p", "allgather", got "all_gather", did you mean 'allgather'?)"},
      {R"({"parallel": {"zero_stage": 4}})", "llama.json: parallel.zero_stage: expected an integer from 0 to 3, got 4"},
      {R"({"parallel": {"fsdp": true, "zero_stage": 1}})",
       "llama.json: parallel.zero_stage: fsdp shards parameters, gradients and optimizer state as ZeRO stage 3 does, "
       "so zero_stage must be 3 or left out, got 1"},
      {R"({"model": {"moe": {"experts": 8, "top_k": 9}}})",
       "llama.json: model.moe.top_k: expected an integer from 1 to 8, got 9"},
      {R"({"model": {"moe": {"experts": 8, "top_k": 2, "layer_freq": [1, 0]}}})",
       "llama.json: model.moe.layer_freq: expected a list of 80 entries (one per model.layers), got 2"},
      {bad_pattern, "llama.json: model.moe.layer_freq[5]: expected 0 or 1, got 2"},
      {R"({"compute": {"achievable_fraction": 0.4}})",
       "llama.json: compute.achievable_fraction: is no longer read: give the GPU's figures (peak_tflops, "
       "matmul_tflops, attention_tflops, hbm_GBps, sms, memory) here, and what a step sustains of them as compute_efficiency "
       "in a --calibration file (topoplan calibrate --training-log fits it)"},
      {R"({"compute": {"hbm_GBps": 0}})", "llama.json: compute.hbm_GBps: expected a number from 0.001 to 1000000, got 0"},
      {R"({"compute": {"sms": 1.5}})", "llama.json: compute.sms: expected an integer from 1 to 100000, got 1.5"},
      {R"({"compute": {"memory": "lots"}})", "llama.json: compute.memory: invalid size 'lots': expected a number and a unit"},
      {R"({"training": {"attention_backend": "fast"}})",
       R"(llama.json: training.attention_backend: expected one of "flash", "unfused", got "fast")"},
      // Recomputation, as Megatron's TransformerConfig checks it.
      {R"({"training": {"recompute": "partial"}})",
       R"(llama.json: training.recompute: expected one of "none", "selective", "full", got "partial")"},
      {R"({"training": {"recompute": "full"}})",
       R"(llama.json: training.recompute_method: required with recompute "full": "uniform" or "block")"},
      {R"({"training": {"recompute": "full", "recompute_method": "block"}})",
       R"(llama.json: training.recompute_num_layers: required with recompute "full": 1 to the layers per pipeline stage (20))"},
      {R"({"training": {"recompute": "full", "recompute_method": "block", "recompute_num_layers": 21}})",
       "llama.json: training.recompute_num_layers: expected 1 to the layers per pipeline stage (20), got 21"},
      {R"({"training": {"recompute": "full", "recompute_method": "blocks", "recompute_num_layers": 1}})",
       R"(llama.json: training.recompute_method: expected one of "uniform", "block", got "blocks", did you mean 'block'?)"},
      {R"({"training": {"recompute": "selective", "recompute_num_layers": 2}})",
       R"(llama.json: training.recompute_num_layers: applies to recompute "full" only; training.recompute is "selective")"},
      {R"({"training": {"recompute_modules": ["core_attn"]}})",
       R"(llama.json: training.recompute_modules: applies to recompute "selective" only; training.recompute is "none")"},
      {R"({"training": {"recompute": "selective", "recompute_modules": ["core_attn", "attention"]}})",
       R"(llama.json: training.recompute_modules[1]: expected one of ["core_attn","mlp","moe","shared_experts","moe_act","layernorm","mla_up_proj"], got "attention")"},
      {R"({"training": {"recompute": "selective", "recompute_modules": "core_attn"}})",
       R"(llama.json: training.recompute_modules: expected an array, got "core_attn")"},
      {R"({"parallel": {"tp_comm_overlap": true}})",
       "llama.json: parallel.tp_comm_overlap: needs sequence_parallel true (and tp > 1), as Megatron requires"},
      // Megatron's divisibility checks.
      {R"({"model": {"hidden": 8100}})",
       "llama.json: model.heads: hidden 8100 is not divisible by 64 heads (give model.head_dim if the model decouples "
       "them)"},
      {R"({"model": {"head_dim": 0}})", "llama.json: model.head_dim: expected an integer from 1 to 536870911, got 0"},
      {R"({"model": {"kv_heads": 6}})", "llama.json: model.kv_heads: 64 heads are not divisible by 6 kv_heads"},
      {R"({"parallel": {"tp": 3}})", "llama.json: parallel.tp: 64 heads are not divisible by tp 3"},
      {R"({"model": {"kv_heads": 4}})", "llama.json: parallel.tp: 4 kv_heads are not divisible by tp 8"},
      {R"({"model": {"ffn_hidden": 28676}})", "llama.json: parallel.tp: ffn_hidden 28676 is not divisible by tp 8"},
      {R"({"model": {"moe": {"experts": 8, "top_k": 2, "ffn_hidden": 1000}}, "parallel": {"expert_tp": 16}})",
       "llama.json: parallel.expert_tp: moe.ffn_hidden 1000 is not divisible by expert_tp 16"},
      {R"({"model": {"moe": {"experts": 8, "top_k": 2, "ffn_hidden": 1004}}})",  // 1004 = 8 x 125 + 4
       "llama.json: parallel.expert_tp: moe.ffn_hidden 1004 is not divisible by expert_tp 8 (expert_tp defaults to "
       "tp)"},
      {R"({"model": {"moe": {"experts": 8, "top_k": 2}}, "parallel": {"ep": 3}})",
       "llama.json: parallel.ep: 8 experts are not divisible by ep 3"},
      {R"({"parallel": {"ep": 2}})",
       "llama.json: parallel.ep: ep 2 needs an MoE model (model.moe), the model is dense"},
      {R"({"model": {"moe": {"experts": 8, "top_k": 2}}, "parallel": {"ep": 2}})",
       "llama.json: parallel.sequence_parallel: Megatron requires sequence parallelism for MoE with ep 2 and tp 8, got "
       "false"},
      {R"({"training": {"global_batch": 100, "micro_batch": 2}})",  // 100 = 8 x 12 + 4
       "llama.json: training.global_batch: 100 is not divisible by micro_batch x dp = 2 x 4 = 8"},
      {R"({"training": {"seq_length": 8200}, "parallel": {"cp": 3}})",  // 8200 = 6 x 1366 + 4
       "llama.json: parallel.cp: seq_length 8200 is not divisible by 2 x cp = 6 (causal load balancing splits the "
       "sequence into 2 x cp chunks)"},
      {R"({"training": {"seq_length": 8200}, "parallel": {"cp": 2, "sequence_parallel": true}})",  // 4100 = 8 x 512 + 4
       "llama.json: parallel.sequence_parallel: seq_length / cp = 8200 / 2 = 4100 is not divisible by tp 8"},
      // The pipeline split.
      {R"({"parallel": {"pp": 3}})", "llama.json: parallel.pp: 80 layers are not divisible by pp 3"},
      {R"({"parallel": {"virtual_pipeline_stages": 3}})",  // 80 = 12 x 6 + 8
       "llama.json: parallel.virtual_pipeline_stages: 80 layers are not divisible by pp x virtual_pipeline_stages = 4 "
       "x 3 = 12"},
      {R"({"parallel": {"pp": 1, "dp": 16, "first_stage_layers": 7}})",
       "llama.json: parallel.first_stage_layers: needs pp > 1, got pp 1"},
      {R"({"parallel": {"pp": 1, "dp": 16, "virtual_pipeline_stages": 2}})",
       "llama.json: parallel.virtual_pipeline_stages: interleaving needs pp > 1, got pp 1"},
      {R"({"parallel": {"first_stage_layers": 6, "last_stage_layers": 7}})",
       "llama.json: parallel.pp: 80 layers - first_stage_layers 6 - last_stage_layers 7 = 67 layers, which do not "
       "divide evenly over the other 2 stages"},
      {R"({"parallel": {"first_stage_layers": 40, "last_stage_layers": 40}})",
       "llama.json: parallel.pp: 80 layers - first_stage_layers 40 - last_stage_layers 40 = 0 layers for the other 2 "
       "stages; each stage needs at least one layer"},
      {R"({"parallel": {"pp": 2, "dp": 8, "first_stage_layers": 30, "last_stage_layers": 30}})",
       "llama.json: parallel.pp: 80 layers - first_stage_layers 30 - last_stage_layers 30 = 20 layers, but pp 2 has "
       "no stage besides the first and last"},
      {R"({"parallel": {"virtual_pipeline_stages": 3, "first_stage_layers": 6, "last_stage_layers": 6}})",
       // middle stages (80 - 12) / 2 = 34 = 3 x 11 + 1
       "llama.json: parallel.virtual_pipeline_stages: stage 1's 34 layers are not divisible by virtual_pipeline_stages "
       "3"},
      // The order and the expert grid, as RankGroups checks them.
      {R"({"parallel": {"cp": 2, "order": "tp-dp-pp"}})",
       "llama.json: parallel.order: order 'tp-dp-pp' lacks 'cp', but the cp size is 2"},
      {R"({"parallel": {"order": "tp-cp-ep-dq-pp"}})",
       "llama.json: parallel.order: order 'tp-cp-ep-dq-pp': unknown axis 'dq', did you mean 'dp'? (axes: tp, cp, ep, "
       "dp, "
       "pp)"},
      {R"({"model": {"moe": {"experts": 8, "top_k": 2}}, "parallel": {"ep": 8, "sequence_parallel": true}})",
       "llama.json: parallel: world size 128 (tp*cp*pp*dp) is not divisible by expert_tp*ep*pp = 8*8*4 = 256"},
  };
  for (const auto& c : cases) {
    const auto& patch = std::get<0>(c);  // a named variable, not a binding: clang 14 cannot capture those
    CAPTURE(patch);
    CHECK(error_of(patch) == std::get<1>(c));
  }
}

}  // namespace topoplan

// A training job: the model's shape, the batch, and how Megatron-LM splits it over ranks. Job files
// are JSON (docs/job-format.md, examples in data/jobs/); every size is checked the way Megatron
// checks it at start-up, so a job that loads here would also start there.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "planner/rank_groups.h"

namespace topoplan {

// Training precision; parallel string table in job.cc.
enum class Dtype : uint8_t { bf16, fp16, fp8, fp32 };
std::string_view to_string(Dtype d);
std::optional<Dtype> dtype_from(std::string_view s);
int dtype_bytes(Dtype d);  // 2, 2, 1, 4

// How context-parallel attention exchanges K/V (Megatron --cp-comm-type).
enum class CpComm : uint8_t { p2p, allgather };
std::string_view to_string(CpComm c);

struct MoeShape {
  int experts = 0;  // routed experts; 0 = a dense model
  int top_k = 0;
  // Megatron --moe-layer-freq: layer i (0-based) is MoE when i % layer_freq == 0, or, in the list
  // form, when layer_pattern[i] == 1 (the list overrides the int when non-empty).
  int layer_freq = 1;
  std::vector<int> layer_pattern;
  int ffn_hidden = 0;          // per expert
  int shared_experts = 0;      // always-active experts of ffn_hidden each (DeepSeek)
  double capacity_factor = 0;  // 0 = dropless
};

struct ModelShape {
  int layers = 0, hidden = 0, ffn_hidden = 0, heads = 0, kv_heads = 0, vocab = 0;
  // Megatron --kv-channels: each head's width; hidden / heads unless the model decouples them
  // (Qwen3: 128 at hidden 4096 and 64 heads, so Q is 8192 wide).
  int head_dim = 0;
  bool swiglu = true;  // gated MLP: three hidden x ffn matrices instead of two
  MoeShape moe;
  bool is_moe() const { return moe.experts > 0; }
};

// Activation recomputation: Megatron's --recompute-granularity, --recompute-method,
// --recompute-num-layers and --recompute-modules (TransformerConfig's recompute_* fields).
enum class Recompute : uint8_t { none, selective, full };
std::string_view to_string(Recompute r);
enum class RecomputeMethod : uint8_t { uniform, block };
std::string_view to_string(RecomputeMethod m);
// The submodules selective recomputation runs again in backward, as Megatron-Core names them.
enum class RecomputeModule : uint8_t { core_attn, mlp, moe, shared_experts, moe_act, layernorm, mla_up_proj };
std::string_view to_string(RecomputeModule m);

struct RecomputeSpec {
  Recompute granularity = Recompute::none;
  RecomputeMethod method = RecomputeMethod::uniform;  // full only
  int num_layers = 0;                                 // full only: per checkpointed unit (uniform) or per chunk (block)
  std::vector<RecomputeModule> modules;               // selective only; Megatron's default is core_attn
  bool recomputes(RecomputeModule m) const;
};

// How attention's core runs (Megatron --attention-backend): a flash kernel (flash, fused, auto:
// FlashAttention or cuDNN's, the scores never leave the SM), or the unfused path that writes
// them to HBM and runs softmax and dropout over them (unfused, local).
enum class AttentionBackend : uint8_t { flash, unfused };
std::string_view to_string(AttentionBackend a);

struct Training {
  int seq_length = 0, micro_batch = 1, global_batch = 0;
  AttentionBackend attention_backend = AttentionBackend::flash;
  Dtype dtype = Dtype::bf16;
  Dtype grad_reduce_dtype = Dtype::fp32;  // the data-parallel gradient reduction's element type
  // Adam's state: the master weights (none when the weights are fp32) and the two moments. Megatron
  // keeps them in fp32 unless --use-precision-aware-optimizer sets --main-params-dtype,
  // --exp-avg-dtype and --exp-avg-sq-dtype; Apex's distributed Adam (NeMo 1) keeps all three in
  // its `dtype`.
  Dtype main_params_dtype = Dtype::fp32, exp_avg_dtype = Dtype::fp32, exp_avg_sq_dtype = Dtype::fp32;
  RecomputeSpec recompute;
};

struct Parallelism {
  int tp = 1, cp = 1, pp = 1, dp = 1, ep = 1;
  int expert_tp = 1;  // resolved: equals tp when the file leaves it out, as Megatron does
  bool sequence_parallel = false;
  int zero_stage = 0;  // 0-3 as Rajbhandari et al. (SC20) number them
  bool fsdp = false;   // FSDP full sharding; moves what stage 3 moves, so zero_stage is 3
  int virtual_pipeline_stages = 1;
  // Megatron --decoder-first/last-pipeline-num-layers; 0 = an even split.
  int first_stage_layers = 0, last_stage_layers = 0;
  CpComm cp_comm = CpComm::p2p;
  std::string order{kDefaultOrder};
  // Megatron's DDP options: gradient buckets reduced while the last micro-batch's backward runs,
  // parameters gathered while the next step's forward runs (distributed optimizer).
  bool overlap_grad_reduce = true;
  bool overlap_param_gather = true;
  // Megatron --tp-comm-overlap (Transformer Engine's userbuffers): sequence parallelism's
  // all-gathers and reduce-scatters run in chunks under the GEMMs they feed or follow.
  bool tp_comm_overlap = false;
  // Parameters per gradient bucket; 0 = Megatron's default max(40M, 1M x data-parallel size)
  // (megatron/core/distributed/distributed_data_parallel.py).
  int64_t bucket_params = 0;
};

// Overrides of the GPU table in planner/gpu_compute.cc (GpuCompute's fields).
struct ComputeOverrides {
  std::optional<double> peak_tflops;    // dense, at the job's dtype
  std::optional<double> matmul_tflops;  // measured matmul ceiling, at the job's dtype
  std::optional<double> attention_tflops;
  std::optional<double> hbm_GBps;
  std::optional<int> sms;
  std::optional<double> memory_bytes;  // "memory" in the file: a size, "80GiB"
};

struct Job {
  std::string name;
  ModelShape model;
  Training training;
  Parallelism parallel;
  ComputeOverrides compute;
};

// Where the world size comes from when a job file does not give it (Megatron-LM arguments with no
// torchrun --nnodes and --nproc-per-node and no WORLD_SIZE=N): the ranks a command has at hand and
// what gave them ("the 128 ranks of --layout hosts.txt"); ranks 0 = nothing, which is an error
// that says what to add.
struct WorldHint {
  int ranks = 0;
  std::string from;
};
// Asked only for such a file, since working it out may read other files.
using WorldHintSource = std::function<Result<WorldHint>()>;

// Reads and validates a job file: JSON, or Megatron-LM arguments (planner/megatron_args.h), told
// by its content. Errors name the file and the field or flag:
// "llama.json: parallel.tp: 64 heads are not divisible by tp 3".
Result<Job> job_load(const std::string& path, const WorldHintSource& world = nullptr);
// The same for a parsed document; `where` (usually the file name) prefixes every error and gives
// the default name.
Result<Job> job_from_json(const nlohmann::json& doc, const std::string& where);
// Every field written explicitly (defaults resolved), so job_from_json gives the same Job back.
nlohmann::json job_to_json(const Job& job);

// tp * cp * pp * dp: one rank per GPU.
int job_ranks(const Job& job);
ParallelSizes job_parallel_sizes(const Job& job);
// world / (expert_tp * ep * pp): Megatron's expert data-parallel size (CP folded in).
int job_expert_dp(const Job& job);
// An error when the job needs more GPUs than `gpus`; fewer ranks than GPUs leaves some idle.
Result<void> job_fits(const Job& job, int gpus);

// Whether global layer `layer` (0-based) is an MoE layer.
bool job_layer_is_moe(const Job& job, int layer);

// One pipeline stage's share of the layers, as Megatron's get_num_layers_to_build splits them.
struct StageLayers {
  int first = 0;  // global index of its first layer
  int count = 0;
  int moe = 0;  // how many of them are MoE layers
};
std::vector<StageLayers> job_stages(const Job& job);
// The layers of each virtual stage: [physical stage][chunk], virtual_pipeline_stages chunks each.
// A middle stage splits its layers evenly. The first and last stages split theirs as evenly as
// they go, the lighter chunks beside the embedding (the first stage's first chunk) and the loss
// (the last stage's last): Megatron-Core's --pipeline-model-parallel-layout takes any such split,
// its --decoder-first/last-pipeline-num-layers only counts divisible by the virtual stages.
std::vector<std::vector<int>> job_stage_chunks(const Job& job);
// Micro-batches per pipeline per step: global_batch / (micro_batch * dp).
int job_micro_batches(const Job& job);

}  // namespace topoplan

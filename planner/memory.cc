#include "planner/memory.h"

#include <algorithm>

#include "base/units.h"
#include "planner/stage_params.h"

namespace topoplan {
namespace {

double element_bytes(const Job& job) { return job.training.dtype == Dtype::fp32 ? 4 : 2; }

// Bytes per parameter held, before sharding: the weight in the training dtype (fp8 trains on bf16
// weights and keeps an fp8 copy and its transpose for Hopper's GEMMs, Transformer Engine), the
// main gradient in the reduction's dtype, and Adam's master weight (none when the weights are
// fp32 already) and two moments in theirs.
struct ParamBytes {
  double weights = 0, gradients = 0, optimizer = 0;
};
ParamBytes param_bytes(const Job& job) {
  const Dtype d = job.training.dtype;
  ParamBytes b;
  b.weights = d == Dtype::fp32 ? 4 : d == Dtype::fp8 ? 2 + 2 : 2;
  b.gradients = dtype_bytes(job.training.grad_reduce_dtype);
  const Training& t = job.training;
  b.optimizer = (d == Dtype::fp32 ? 0 : dtype_bytes(t.main_params_dtype)) + dtype_bytes(t.exp_avg_dtype) +
                dtype_bytes(t.exp_avg_sq_dtype);
  return b;
}

// Micro-batches in flight on stage `s`, in whole-stage units: 1F1B holds pp - s before its first
// backward; the interleaved schedule's warm-up is (pp - s - 1) * 2 + (v - 1) * pp chunks, plus the
// one in steady state, each 1/v of the stage (Megatron-Core's schedules.py). Never more than the
// step has.
double in_flight(const Job& job, int s) {
  const int pp = job.parallel.pp, v = job.parallel.virtual_pipeline_stages, m = job_micro_batches(job);
  if (v == 1) return std::min(m, pp - s);
  const int chunks = 2 * (pp - s - 1) + (v - 1) * pp + 1;
  return static_cast<double>(std::min(chunks, m * v)) / v;
}

}  // namespace

double layer_activation_bytes(const Job& job, bool moe_layer) {
  const ModelShape& m = job.model;
  const Parallelism& p = job.parallel;
  // Full recomputation is the caller's (memory_estimate): here a layer keeps what selective
  // recomputation leaves, or everything.
  const RecomputeSpec r = job.training.recompute.granularity == Recompute::selective ? job.training.recompute
                                                                                       : RecomputeSpec{};
  const double t = p.tp, tokens = static_cast<double>(job.training.micro_batch) * job.training.seq_length / p.cp;
  const double h = m.hidden, q = static_cast<double>(m.heads) * m.head_dim, kv = 2.0 * m.kv_heads * m.head_dim;
  // Bytes per element kept: the training dtype's, but with fp8 Transformer Engine keeps a linear
  // layer's input for its weight gradient as the fp8 cast it multiplied (1 byte), so attention's
  // output is kept twice, in bf16 for flash attention's backward and in fp8 for the projection.
  const bool fp8 = job.training.dtype == Dtype::fp8;
  const double e = element_bytes(job), in = fp8 ? 1 : e;
  // A feed-forward block's kept tensors per token, `ffn` wide: fc1's input, its output(s), and
  // fc2's input (the activation's output).
  const double g = m.swiglu ? 2 : 1;  // fc1's outputs
  auto ffn_block = [&](double input, double ffn) { return input * in + ffn * (g * e + in); };
  // Tensors sequence parallelism shards over the TP group (replicated without it): the two norms'
  // inputs, and the inputs of QKV and fc1 (Megatron keeps the shard and gathers it again).
  const double shard = p.sequence_parallel ? t : 1;
  double norms = 2 * h / shard * e;
  // QKV's input, Q K V, and the output.
  const double attention = h / shard * in + (q + kv) / t * e + q / t * (fp8 ? e + in : e);
  double mlp = 0;
  if (!moe_layer) {
    mlp = r.recomputes(RecomputeModule::mlp) ? h / shard * e : ffn_block(h / shard, m.ffn_hidden / t);
  } else {
    const MoeShape& x = m.moe;
    const double routed = x.top_k * static_cast<double>(p.expert_tp) / t;  // copies per token on this GPU
    // The block's input (the router's, and what is permuted), each routed copy's expert, and the
    // shared experts.
    mlp = h / shard * e + routed * ffn_block(h, x.ffn_hidden / p.expert_tp) +
          (x.shared_experts ? ffn_block(0, x.ffn_hidden * x.shared_experts / t) : 0);
    if (r.recomputes(RecomputeModule::moe)) mlp = h / shard * e;
    else if (r.recomputes(RecomputeModule::moe_act)) mlp -= routed * x.ffn_hidden / p.expert_tp * in;
  }
  if (r.recomputes(RecomputeModule::layernorm)) norms = 0;
  double bytes = tokens * (norms + attention + mlp);
  // The unfused path keeps the softmax's output for backward: 2 bytes per score, unless core
  // attention is recomputed.
  if (job.training.attention_backend == AttentionBackend::unfused && !r.recomputes(RecomputeModule::core_attn))
    bytes += 2 * job.training.micro_batch * (m.heads / t) * job.training.seq_length * tokens;
  return bytes;
}

MemoryEstimate memory_estimate(const Job& job, const GpuCompute& gpu) {
  MemoryEstimate out;
  out.capacity_bytes = gpu.memory_bytes;
  const Parallelism& p = job.parallel;
  const ParamBytes per = param_bytes(job);
  const double dense_dp = static_cast<double>(p.dp) * p.cp, expert_dp = job_expert_dp(job);
  const double dense_layer = layer_activation_bytes(job, false);
  const double moe_layer = job.model.is_moe() ? layer_activation_bytes(job, true) : 0;
  const std::vector<StageLayers> stages = job_stages(job);
  const RecomputeSpec& r = job.training.recompute;
  for (size_t s = 0; s < stages.size(); ++s) {
    const bool first = s == 0, last = s + 1 == stages.size();
    const StageParams held = stage_params(job, stages[s], first, last);
    // ZeRO 1 shards the optimizer states, 2 the gradients too, 3 (FSDP) the weights too.
    auto sharded = [&](double bytes_per_param, int from_stage) {
      if (p.zero_stage < from_stage) return bytes_per_param * (held.dense + held.expert);
      return bytes_per_param * (held.dense / dense_dp + held.expert / expert_dp);
    };
    StageMemory m;
    m.weights_bytes = sharded(per.weights, 3);
    m.gradients_bytes = sharded(per.gradients, 2);
    m.optimizer_bytes = sharded(per.optimizer, 1);
    const int dense_layers = stages[s].count - stages[s].moe;
    const double full = dense_layers * dense_layer + stages[s].moe * moe_layer;  // every layer's
    double per_micro_batch = full, transient = 0;
    if (r.granularity == Recompute::full && stages[s].count > 0) {
      // A checkpointed layer keeps its input only; while backward recomputes one, its unit's
      // activations live again, once.
      const double input = static_cast<double>(job.training.micro_batch) * job.training.seq_length / p.cp *
                           job.model.hidden / (p.sequence_parallel ? p.tp : 1) * element_bytes(job);
      const double average = full / stages[s].count;
      if (r.method == RecomputeMethod::uniform) {
        // Units of recompute_num_layers layers, each keeping the input of its first.
        per_micro_batch = stages[s].count * input / r.num_layers;
        transient = std::min(r.num_layers, stages[s].count) * average;
      } else {
        // "block": the first recompute_num_layers of each chunk; the rest keep everything.
        const int per_chunk = stages[s].count / p.virtual_pipeline_stages;
        const double checkpointed = std::min(r.num_layers, per_chunk) * p.virtual_pipeline_stages;
        per_micro_batch = checkpointed * input + (stages[s].count - checkpointed) * average;
        transient = average;
      }
    }
    m.in_flight = in_flight(job, static_cast<int>(s));
    m.activations_per_micro_batch_bytes = per_micro_batch;
    m.activations_bytes = per_micro_batch * m.in_flight + transient;
    // The last stage's logits and their fp32 softmax for the loss, one micro-batch at a time.
    if (last)
      m.activations_bytes += static_cast<double>(job.training.micro_batch) * job.training.seq_length / p.cp *
                             job.model.vocab / p.tp * (2 + 4);
    out.stages.push_back(m);
  }
  for (size_t s = 1; s < out.stages.size(); ++s)
    if (out.stages[s].total_bytes() > out.peak().total_bytes()) out.peak_stage = static_cast<int>(s);
  return out;
}

// One unit for every figure of a memory line, so that GiB sit beside GiB.
std::string gib(double bytes) { return format_bytes(bytes, SizeUnits::binary); }

std::string memory_text(const MemoryEstimate& m, const std::string& gpu) {
  const StageMemory& p = m.peak();
  return "stage " + std::to_string(m.peak_stage) + ": " + gib(p.total_bytes()) + " of the " + gpu + "'s " +
         gib(m.capacity_bytes) + " (weights " + gib(p.weights_bytes) + ", gradients " +
         gib(p.gradients_bytes) + ", optimizer states " + gib(p.optimizer_bytes) + ", activations " +
         gib(p.activations_bytes) + " for " + format_number(p.in_flight, 2) + " micro-batches in flight)";
}

std::string memory_over_text(const Job& job, const GpuCompute& gpu, const MemoryEstimate& m) {
  if (m.fits()) return "";
  std::string out = "the job does not fit in GPU memory: " + memory_text(m, gpu.model) + ", " +
                    gib(m.peak().total_bytes() - m.capacity_bytes) + " over";
  Job full = job;
  full.training.recompute = {Recompute::full, RecomputeMethod::uniform, 1, {}};
  const MemoryEstimate with = memory_estimate(full, gpu);
  if (job.training.recompute.granularity != Recompute::full && with.fits())
    return out + "; full recomputation (uniform, one layer per checkpoint) would bring stage " +
           std::to_string(with.peak_stage) + " to " + gib(with.peak().total_bytes());
  return out + "; even full recomputation needs " + gib(with.peak().total_bytes()) + " on stage " +
         std::to_string(with.peak_stage) + ": more tensor, pipeline or context parallelism, or a sharded optimizer";
}

}  // namespace topoplan

#include <string>

#include "base/units.h"
#include "planner/emit/formats.h"
#include "planner/emit/preamble.h"
#include "planner/megatron_layout.h"

namespace topoplan {
namespace {

// Besides the default, the only order Megatron takes from its command line: megatron/training/
// initialize.py passes order='tp-cp-ep-dp-pp' if not args.use_tp_pp_dp_mapping else 'tp-cp-ep-pp-dp'.
constexpr std::string_view kTpPpDpOrder = "tp-cp-ep-pp-dp";

// Two orders are the same plan when every rank gets the same coordinates on both of Megatron's
// grids: axes of size 1 can sit anywhere ("tp-dp-pp" is the default when cp = ep = 1).
bool same_grids(const RankGroups& a, const RankGroups& b) {
  for (int r = 0; r < a.world_size(); ++r)
    if (a.dense().coordinates(r) != b.dense().coordinates(r) || a.expert().coordinates(r) != b.expert().coordinates(r))
      return false;
  return true;
}

// The file's lines: arguments and the comments beside them.
struct Lines {
  std::string text;
  void comment(const std::string& s) { text += "# " + s + "\n"; }
  void flag(const std::string& name) { text += name + "\n"; }
  void arg(const std::string& name, int64_t value) { text += name + " " + std::to_string(value) + "\n"; }
  void arg(const std::string& name, const std::string& value) { text += name + " " + value + "\n"; }
};

// --moe-layer-freq's list form as Megatron evaluates it (arguments.py _eval_pattern: digits, commas,
// brackets, parentheses, + and * only): runs of equal entries, "[0]*3+[1]*58".
std::string layer_pattern(const std::vector<int>& pattern) {
  std::string out;
  for (size_t i = 0; i < pattern.size();) {
    size_t j = i;
    while (j < pattern.size() && pattern[j] == pattern[i]) ++j;
    out += (out.empty() ? "" : "+") + std::string("[") + std::to_string(pattern[i]) + "]";
    if (j - i > 1) out += "*" + std::to_string(j - i);
    i = j;
  }
  return out;
}

void model_args(const Job& job, Lines& out) {
  const ModelShape& m = job.model;
  out.comment("model");
  out.arg("--num-layers", m.layers);
  out.arg("--hidden-size", m.hidden);
  out.arg("--ffn-hidden-size", m.ffn_hidden);
  out.arg("--num-attention-heads", m.heads);
  // Megatron reads --num-query-groups only with --group-query-attention (argument_utils.py).
  if (m.kv_heads != m.heads) {
    out.flag("--group-query-attention");
    out.arg("--num-query-groups", m.kv_heads);
  }
  out.arg("--kv-channels", m.head_dim);
  out.comment(
      "the vocabulary the score assumed; with a tokenizer Megatron takes the tokenizer's and pads it to a "
      "multiple of --make-vocab-size-divisible-by x tp");
  out.arg("--vocab-size", m.vocab);
  if (m.swiglu) out.flag("--swiglu");
  if (!m.is_moe()) return;
  const MoeShape& moe = m.moe;
  out.comment("mixture of experts");
  out.arg("--num-experts", moe.experts);
  out.arg("--moe-router-topk", moe.top_k);
  out.arg("--moe-ffn-hidden-size", moe.ffn_hidden);
  if (!moe.layer_pattern.empty()) {
    out.comment("a pattern of * and [ ]: expand this file with globbing off (set -f), or quote the value");
    out.arg("--moe-layer-freq", layer_pattern(moe.layer_pattern));
  } else {
    out.arg("--moe-layer-freq", moe.layer_freq);
  }
  if (moe.shared_experts > 0)
    out.arg("--moe-shared-expert-intermediate-size", int64_t{moe.shared_experts} * moe.ffn_hidden);
  if (moe.capacity_factor > 0) {
    // The score sends capacity_factor times the routed tokens: every expert's full capacity.
    out.arg("--moe-expert-capacity-factor", format_number(moe.capacity_factor, 6));
    out.flag("--moe-pad-expert-input-to-capacity");
  }
  // Megatron's default dispatcher is allgather; the score's expert traffic is the all-to-all one.
  out.arg("--moe-token-dispatcher-type", "alltoall");
}

// Precision, and the element type the data-parallel gradient reduction uses (arguments.py: with
// --bf16 gradients accumulate and reduce in fp32 unless --grad-reduce-in-bf16; with --fp16 in fp16
// unless --accumulate-allreduce-grads-in-fp32).
void precision_args(const Job& job, Lines& out) {
  const Dtype d = job.training.dtype, g = job.training.grad_reduce_dtype;
  out.comment("precision");
  if (d == Dtype::bf16 || d == Dtype::fp8) out.flag("--bf16");
  if (d == Dtype::fp16) out.flag("--fp16");
  // FP8 GEMMs through Transformer Engine on bf16 parameters; "hybrid" is E4M3 forward, E5M2 backward.
  if (d == Dtype::fp8) out.arg("--fp8-format", "hybrid");
  // The attention kernels the score timed: a flash kernel, or the unfused path.
  out.arg("--attention-backend", job.training.attention_backend == AttentionBackend::flash ? "flash" : "unfused");
  const bool bf16_params = d == Dtype::bf16 || d == Dtype::fp8;
  if (g == Dtype::fp32 && d != Dtype::fp32)
    out.flag("--accumulate-allreduce-grads-in-fp32");
  else if (g == Dtype::bf16 && bf16_params)
    out.flag("--grad-reduce-in-bf16");
  else if (!(g == Dtype::fp16 && d == Dtype::fp16) && !(g == Dtype::fp32 && d == Dtype::fp32))
    out.comment("grad_reduce_dtype " + std::string(to_string(g)) + " with dtype " + std::string(to_string(d)) +
                ": Megatron-LM has no flag for it; it reduces in " + (d == Dtype::fp16 ? "fp16" : "fp32") +
                ", which the score did not assume");
  // Adam's state narrower than fp32: Transformer Engine's precision-aware optimizer.
  const Training& t = job.training;
  if (t.main_params_dtype != Dtype::fp32 || t.exp_avg_dtype != Dtype::fp32 || t.exp_avg_sq_dtype != Dtype::fp32) {
    out.flag("--use-precision-aware-optimizer");
    if (t.main_params_dtype == Dtype::fp16) out.arg("--main-params-dtype", "fp16");
    if (t.main_params_dtype == Dtype::bf16)
      out.comment("main_params_dtype bf16: Megatron-LM keeps master weights in fp32 or fp16 only; it keeps them in "
                  "fp32, which the score did not assume");
    if (t.exp_avg_dtype != Dtype::fp32) out.arg("--exp-avg-dtype", std::string(to_string(t.exp_avg_dtype)));
    if (t.exp_avg_sq_dtype != Dtype::fp32) out.arg("--exp-avg-sq-dtype", std::string(to_string(t.exp_avg_sq_dtype)));
  }
}

Result<void> parallel_args(const Job& job, Lines& out) {
  const Parallelism& p = job.parallel;
  out.comment("parallelism");
  out.arg("--tensor-model-parallel-size", p.tp);
  out.arg("--pipeline-model-parallel-size", p.pp);
  out.arg("--context-parallel-size", p.cp);
  out.arg("--expert-model-parallel-size", p.ep);
  out.arg("--expert-tensor-parallel-size", p.expert_tp);
  // virtual_pipeline_model_parallel_size itself has no flag: the count or the layout sets it
  // (arguments.py), the layout where the first or last stage splits unevenly over it.
  const std::string layout = megatron_pipeline_layout(job);
  if (!layout.empty()) {
    out.comment(
        "the layers of every virtual stage, the first and last stages one chunk lighter beside the "
        "embedding and the loss, as scored");
    out.arg("--pipeline-model-parallel-layout", layout);
  } else if (p.virtual_pipeline_stages > 1) {
    out.arg("--num-virtual-stages-per-pipeline-rank", p.virtual_pipeline_stages);
  }
  if (p.virtual_pipeline_stages > 1)
    out.comment(
        "the interleaved schedule overlaps its sends and receives with compute, as the score assumed: Megatron's "
        "default since 4eeff55d (overlap_p2p_comm); do not add --no-overlap-p2p-communication");
  if (layout.empty() && p.first_stage_layers > 0) out.arg("--decoder-first-pipeline-num-layers", p.first_stage_layers);
  if (layout.empty() && p.last_stage_layers > 0) out.arg("--decoder-last-pipeline-num-layers", p.last_stage_layers);
  if (p.sequence_parallel) out.flag("--sequence-parallel");
  // TransformerConfig.cp_comm_type spells the all-gather variant "all_gather", the value
  // Transformer Engine's attention takes.
  if (p.cp > 1) out.arg("--cp-comm-type", p.cp_comm == CpComm::p2p ? "p2p" : "all_gather");
  if (p.tp_comm_overlap) out.flag("--tp-comm-overlap");

  // ZeRO stages: 1 is the distributed optimizer; 2 and 3 are Megatron FSDP's sharding strategies
  // (arguments.py --data-parallel-sharding-strategy), whose version 1 needs the distributed optimizer.
  if (p.zero_stage >= 1) out.flag("--use-distributed-optimizer");
  if (p.zero_stage >= 2) {
    out.flag("--use-megatron-fsdp");
    out.arg("--data-parallel-sharding-strategy", p.zero_stage == 2 ? "optim_grads" : "optim_grads_params");
  }
  if (p.overlap_grad_reduce) out.flag("--overlap-grad-reduce");
  // Only a sharded optimizer gathers parameters; arguments.py asserts --overlap-grad-reduce with it.
  if (p.zero_stage >= 1 && p.overlap_param_gather) {
    if (!p.overlap_grad_reduce)
      return Error{"job '" + job.name +
                   "' overlaps the parameter all-gather without overlapping the gradient reduction "
                   "(overlap_param_gather true, overlap_grad_reduce false); Megatron-LM refuses --overlap-param-gather "
                   "without --overlap-grad-reduce (arguments.py), so no command line runs the scored job"};
    out.flag("--overlap-param-gather");
  }
  if (p.bucket_params > 0) out.arg("--ddp-bucket-size", p.bucket_params);
  return {};
}

void batch_args(const Job& job, Lines& out) {
  const Training& t = job.training;
  out.comment("batch");
  out.arg("--seq-length", t.seq_length);
  out.arg("--micro-batch-size", t.micro_batch);
  out.arg("--global-batch-size", t.global_batch);
}

void recompute_args(const Job& job, Lines& out) {
  const RecomputeSpec& r = job.training.recompute;
  if (r.granularity == Recompute::none) return;
  out.comment("activation recomputation");
  out.arg("--recompute-granularity", std::string(to_string(r.granularity)));
  if (r.granularity == Recompute::full) {
    out.arg("--recompute-method", std::string(to_string(r.method)));
    out.arg("--recompute-num-layers", r.num_layers);
    return;
  }
  std::string modules;
  for (RecomputeModule m : r.modules) modules += (modules.empty() ? "" : " ") + std::string(to_string(m));
  out.arg("--recompute-modules", modules);
}

// The order's flag, if it has one; else what to change in Megatron, also returned as a note for
// the command's output (the arguments alone would run Megatron's default order).
std::string order_args(const Job& job, const RankGroups& planned, Lines& out) {
  const Parallelism& p = job.parallel;
  Result<RankGroups> by_default = RankGroups::make(job_parallel_sizes(job), kDefaultOrder);
  Result<RankGroups> by_tp_pp_dp = RankGroups::make(job_parallel_sizes(job), kTpPpDpOrder);
  const std::string order = "order " + p.order + ": ";
  if (by_default && same_grids(planned, *by_default)) {
    out.comment(order + (p.order == kDefaultOrder ? "" : "the same ranks as ") + "Megatron's default (" +
                std::string(kDefaultOrder) + "), no flag needed");
  } else if (by_tp_pp_dp && same_grids(planned, *by_tp_pp_dp)) {
    out.comment(order + (p.order == kTpPpDpOrder ? "--use-tp-pp-dp-mapping selects it"
                                                 : "the same ranks as " + std::string(kTpPpDpOrder) +
                                                       ", which --use-tp-pp-dp-mapping selects"));
    out.flag("--use-tp-pp-dp-mapping");
  } else {
    // No flag takes an arbitrary order: initialize_model_parallel's `order` keyword does
    // (megatron/core/parallel_state.py), and megatron/training/initialize.py passes only the two above.
    const std::string note = "order " + p.order + " has no command-line flag: pass order=\"" + p.order +
                             "\" to initialize_model_parallel (megatron/core/parallel_state.py) where "
                             "megatron/training/initialize.py calls it";
    out.comment(note);
    return note;
  }
  return "";
}

}  // namespace

// Every argument whose value the score depends on, as NVIDIA/Megatron-LM d98e8a64 spells it: the
// TransformerConfig, ModelParallelConfig, TrainingConfig and TokenizerConfig fields turned into flags
// by ArgumentGroupFactory (megatron/training/argument_utils.py: "--" + name with '_' -> '-',
// booleans as store_true), the rest from megatron/training/arguments.py. The overlap flags are
// written because the job's defaults (on) are not Megatron's (off). `--job` reads the file back
// (planner/megatron_args.h), so a change here is a change there.
EmitResult emit_megatron(const EmitInput& in, const RankPlacement& placement) {
  const Job& job = in.job;
  const Parallelism& p = job.parallel;
  Result<RankGroups> planned = RankGroups::make(job_parallel_sizes(job), p.order);
  if (!planned) return Error{"job '" + job.name + "': " + planned.error()};

  Lines out;
  out.text = emit_preamble("megatron", in, placement);
  out.comment("Megatron-LM arguments, one per line: pretrain_gpt.py $(grep -v '^#' megatron.args) ...");
  out.comment("world size " + std::to_string(placement.ranks.size()) + " = tp x cp x pp x dp; Megatron derives dp " +
              std::to_string(p.dp) + " from it");
  model_args(job, out);
  batch_args(job, out);
  precision_args(job, out);
  RETURN_IF_ERROR(parallel_args(job, out));
  recompute_args(job, out);
  const std::string order_note = order_args(job, *planned, out);
  const ComputeOverrides& o = job.compute;
  if (o.peak_tflops || o.matmul_tflops || o.attention_tflops || o.hbm_GBps || o.sms || o.memory_bytes)
    out.comment("the job file's compute figures set topoplan's compute estimate; Megatron-LM has no flag for them");
  EmittedFile file{"megatron.args", std::move(out.text), {}};
  if (!order_note.empty()) file.notes.push_back(order_note);
  return std::vector<EmittedFile>{std::move(file)};
}

}  // namespace topoplan

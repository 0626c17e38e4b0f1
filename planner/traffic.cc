#include "planner/traffic.h"

#include <algorithm>
#include <cmath>

#include "base/index_list.h"

namespace topoplan {
namespace {

// Activations and gathered parameters move at 2 bytes unless the job trains in fp32: fp8 training
// keeps bf16 activations between layers and bf16 parameter copies (Transformer Engine's default).
double activation_bytes(const Job& job) { return job.training.dtype == Dtype::fp32 ? 4 : 2; }

class Builder {
 public:
  Builder(const Job& job, StepTraffic& out) : job_(job), out_(out) {}

  int window(const std::string& what, double us) {
    out_.windows.push_back({what, us});
    return static_cast<int>(out_.windows.size()) - 1;
  }

  TrafficItem& add(TrafficKind kind, Phase phase, CollectiveOp op, std::string group, std::string what, double bytes,
                   double calls, int window_index = -1) {
    TrafficItem it;
    it.kind = kind;
    it.phase = phase;
    it.op = op;
    it.group = std::move(group);
    it.what = std::move(what);
    it.bytes = bytes;
    it.calls = calls;
    it.window = window_index;
    out_.items.push_back(std::move(it));
    return out_.items.back();
  }

  // Gradient reduction and parameter gathering for `params` per GPU over `group` of `size` ranks
  // (Megatron's DDP and distributed optimizer; ZeRO stages as Rajbhandari et al., SC20).
  void data_parallel(const std::string& group, int size, double params, const std::string& which, int backward_window,
                     int forward_window, int fsdp_forward, int fsdp_backward, int layers) {
    if (size < 2 || params <= 0) return;
    const Parallelism& p = job_.parallel;
    const double grad = dtype_bytes(job_.training.grad_reduce_dtype), param = activation_bytes(job_);
    const double m = out_.compute.micro_batches;
    if (p.zero_stage == 3) {
      // Parameters gathered layer by layer for forward and again for backward, gradients
      // reduce-scattered as each layer's backward ends, every micro-batch; prefetching hides them
      // under the neighbouring layers' compute.
      const double per_layer = params / std::max(layers, 1);
      const double calls = m * std::max(layers, 1);
      add(TrafficKind::dp, Phase::forward, CollectiveOp::all_gather, group, which + " parameters, per layer",
          per_layer * param, calls, fsdp_forward);
      add(TrafficKind::dp, Phase::backward, CollectiveOp::all_gather, group, which + " parameters, per layer",
          per_layer * param, calls, fsdp_backward);
      add(TrafficKind::dp, Phase::backward, CollectiveOp::reduce_scatter, group, which + " gradients, per layer",
          per_layer * grad, calls, fsdp_backward);
      return;
    }
    const double bucket = p.bucket_params > 0 ? static_cast<double>(p.bucket_params) : std::max(40e6, 1e6 * size);
    const double buckets = std::ceil(params / bucket);
    const double per_bucket = params / buckets;
    const CollectiveOp reduce = p.zero_stage == 0 ? CollectiveOp::all_reduce : CollectiveOp::reduce_scatter;
    TrafficItem& g = add(TrafficKind::dp, Phase::backward, reduce, group, which + " gradients, per bucket",
                         per_bucket * grad, buckets, p.overlap_grad_reduce ? backward_window : -1);
    g.unhidden_calls = p.overlap_grad_reduce ? 1 : 0;
    if (p.zero_stage == 0) return;
    TrafficItem& a = add(TrafficKind::dp, Phase::optimizer, CollectiveOp::all_gather, group,
                         which + " parameters after the optimizer step, per bucket", per_bucket * param, buckets,
                         p.overlap_param_gather ? forward_window : -1);
    a.unhidden_calls = p.overlap_param_gather ? 1 : 0;
  }

 private:
  const Job& job_;
  StepTraffic& out_;
};

}  // namespace

std::string_view to_string(TrafficKind k) {
  static constexpr std::string_view kNames[] = {"tp", "cp", "pp", "dp", "ep"};
  return kNames[static_cast<size_t>(k)];
}

std::string StageClass::label() const {
  return (stages.size() == 1 ? "stage " : "stages ") + format_index_list(stages);
}

std::string_view to_string(Phase p) {
  static constexpr std::string_view kNames[] = {"forward", "backward", "forward+backward", "optimizer"};
  return kNames[static_cast<size_t>(p)];
}

size_t stage_pairs_per_pipeline(const Job& job) {
  const int p = job.parallel.pp;
  return static_cast<size_t>(std::max(0, p - 1) + (job.parallel.virtual_pipeline_stages > 1 && p > 2 ? 1 : 0));
}

Result<StepTraffic> step_traffic(const Job& job, const ComputeEstimate& compute) {
  if (compute.stages.size() != static_cast<size_t>(job.parallel.pp))
    return Error{"the compute estimate has " + std::to_string(compute.stages.size()) + " stages, the job " +
                 std::to_string(job.parallel.pp)};
  StepTraffic out;
  out.compute = compute;
  Builder b(job, out);
  const Parallelism& p = job.parallel;
  const Training& t = job.training;
  const ModelShape& model = job.model;
  const StageCompute& slow = compute.slowest();
  const double m = compute.micro_batches, v = p.virtual_pipeline_stages;
  const double act = activation_bytes(job);
  // One micro-batch's hidden states on one context-parallel rank: b x s/cp x h.
  const double hidden_bytes = static_cast<double>(t.micro_batch) * t.seq_length / p.cp * model.hidden * act;

  // Tensor parallelism (Shoeybi et al. 2019; sequence parallelism: Korthikanti et al., MLSys 2023):
  // every column/row-parallel pair (attention, MLP) reduces its output in forward and its input
  // gradient in backward; MoE layers' MLP pairs run on the expert-TP group instead.
  const int dense_layers = slow.layers - slow.moe_layers;
  const int tp_pairs = 2 * dense_layers + slow.moe_layers;
  const int etp_pairs = p.expert_tp > 1 ? slow.moe_layers : 0;
  // Recomputation runs the recomputed modules' forward communication again in backward: all of a
  // recomputed layer's under "full"; a dense MLP's TP pair ("mlp"), an MoE layer's dispatch,
  // combine and expert-TP pair ("moe"), context-parallel attention's K/V ring ("core_attn").
  const RecomputeSpec& r = t.recompute;
  const double full = slow.layers > 0 ? static_cast<double>(slow.recomputed_layers) / slow.layers : 0;
  // Of `count` calls per micro-batch, how many run again: the recomputed layers' share under
  // "full", all of `selective` under selective recomputation.
  const auto again_of = [&](double count, double selective) {
    return r.granularity == Recompute::full ? count * full : selective;
  };
  const bool moe_again = r.recomputes(RecomputeModule::moe);
  const double tp_again = again_of(tp_pairs, r.recomputes(RecomputeModule::mlp) ? dense_layers : 0);
  const double etp_again = again_of(etp_pairs, moe_again ? etp_pairs : 0);
  const double cp_again = again_of(slow.layers, r.recomputes(RecomputeModule::core_attn) ? slow.layers : 0);
  const double ep_again = again_of(slow.moe_layers, moe_again ? slow.moe_layers : 0);
  const int column =
      b.window("backward GEMMs of the column-parallel layers (QKV, fc1)", m * 2 * slow.column_gemm_forward_us);
  // With tp_comm_overlap every sequence-parallel all-gather and reduce-scatter hides under the
  // GEMM it feeds or follows, in forward, in the recomputed forward and in backward.
  const double tp_gemms_us = slow.column_gemm_forward_us + slow.row_gemm_forward_us;
  const bool overlap = p.tp_comm_overlap;
  const int forward_gemms = overlap ? b.window("forward GEMMs of the tensor-parallel layers", m * tp_gemms_us) : -1;
  const int recomputed_gemms = overlap && tp_again + etp_again > 0
                                   ? b.window("recomputed forward GEMMs of the tensor-parallel layers",
                                              m * tp_gemms_us * (tp_again + etp_again) / (tp_pairs + etp_pairs))
                                   : -1;
  const int row = overlap ? b.window("backward GEMMs of the row-parallel layers (attention output, fc2)",
                                     m * 2 * slow.row_gemm_forward_us)
                          : -1;
  for (auto [group, size, pairs, again] :
       {std::tuple{"tp", p.tp, tp_pairs, tp_again}, std::tuple{"expert.tp", p.expert_tp, etp_pairs, etp_again}}) {
    if (size < 2 || pairs == 0) continue;
    const double calls = m * pairs;
    if (p.sequence_parallel) {
      b.add(TrafficKind::tp, Phase::forward, CollectiveOp::all_gather, group, "layer inputs (sequence parallel)",
            hidden_bytes, calls, forward_gemms);
      b.add(TrafficKind::tp, Phase::forward, CollectiveOp::reduce_scatter, group, "layer outputs (sequence parallel)",
            hidden_bytes, calls, forward_gemms);
      if (again > 0) {
        b.add(TrafficKind::tp, Phase::backward, CollectiveOp::all_gather, group, "layer inputs, recomputed forward",
              hidden_bytes, m * again, recomputed_gemms);
        b.add(TrafficKind::tp, Phase::backward, CollectiveOp::reduce_scatter, group,
              "layer outputs, recomputed forward", hidden_bytes, m * again, recomputed_gemms);
      }
      b.add(TrafficKind::tp, Phase::backward, CollectiveOp::all_gather, group, "output gradients (sequence parallel)",
            hidden_bytes, calls, row);
      b.add(TrafficKind::tp, Phase::backward, CollectiveOp::all_gather, group,
            "inputs re-gathered for weight gradients", hidden_bytes, calls, column);
      b.add(TrafficKind::tp, Phase::backward, CollectiveOp::reduce_scatter, group, "input gradients", hidden_bytes,
            calls, column);
    } else {
      b.add(TrafficKind::tp, Phase::forward, CollectiveOp::all_reduce, group, "attention and MLP outputs", hidden_bytes,
            calls);
      if (again > 0)
        b.add(TrafficKind::tp, Phase::backward, CollectiveOp::all_reduce, group, "outputs, recomputed forward",
              hidden_bytes, m * again);
      b.add(TrafficKind::tp, Phase::backward, CollectiveOp::all_reduce, group, "input gradients", hidden_bytes, calls,
            column);
    }
  }

  // Context parallelism (Megatron's --cp-comm-type; ring attention, Liu et al. 2023): each rank's
  // K and V chunk visits every other rank once per layer; backward moves K/V again and their
  // gradients. The ring of sends moves what a ring all-gather moves, so it is modelled as one.
  if (p.cp > 1) {
    const double kv_bytes =
        2.0 * t.micro_batch * t.seq_length * (static_cast<double>(model.kv_heads) * model.head_dim / p.tp) * act;
    const double calls = m * slow.layers;
    if (p.cp_comm == CpComm::p2p) {
      const int fwd = b.window("attention in forward", m * slow.attention_core_forward_us);
      const int bwd = b.window("attention in backward", m * 2 * slow.attention_core_forward_us);
      b.add(TrafficKind::cp, Phase::forward, CollectiveOp::all_gather, "cp", "K/V ring (p2p)", kv_bytes, calls, fwd)
          .algo = NcclAlgo::ring;
      b.add(TrafficKind::cp, Phase::backward, CollectiveOp::all_gather, "cp", "K/V and their gradients ring (p2p)",
            2 * kv_bytes, calls, bwd)
          .algo = NcclAlgo::ring;
      if (cp_again > 0) {
        const int again =
            b.window("attention recomputed in backward", m * cp_again * slow.attention_core_forward_us / slow.layers);
        b.add(TrafficKind::cp, Phase::backward, CollectiveOp::all_gather, "cp", "K/V ring (p2p), recomputed forward",
              kv_bytes, m * cp_again, again)
            .algo = NcclAlgo::ring;
      }
    } else {
      b.add(TrafficKind::cp, Phase::forward, CollectiveOp::all_gather, "cp", "K/V all-gather", kv_bytes, calls);
      if (cp_again > 0)
        b.add(TrafficKind::cp, Phase::backward, CollectiveOp::all_gather, "cp", "K/V all-gather, recomputed forward",
              kv_bytes, m * cp_again);
      b.add(TrafficKind::cp, Phase::backward, CollectiveOp::all_gather, "cp", "K/V all-gather", kv_bytes, calls);
      b.add(TrafficKind::cp, Phase::backward, CollectiveOp::reduce_scatter, "cp", "K/V gradients", kv_bytes, calls);
    }
  }

  // Pipeline parallelism (Narayanan et al., SC21): the critical path runs through m*v + pp - 1
  // schedule slots, each carrying one activation forward and one gradient backward between
  // neighbouring stages (1/tp of it with sequence parallelism). 1F1B blocks on them; the
  // interleaved schedule overlaps them with the next chunk's compute (--overlap-p2p-comm).
  if (p.pp > 1) {
    const double bytes = hidden_bytes / (p.sequence_parallel ? p.tp : 1);
    const int window = v > 1 ? b.window("the next chunk's forward and backward",
                                        (m * v + p.pp - 1) * (slow.forward_us + slow.backward_us) / v)
                             : -1;
    TrafficItem& it = b.add(TrafficKind::pp, Phase::pipeline, CollectiveOp::sendrecv, "pp",
                            "activations forward, gradients backward", bytes, m * v + p.pp - 1, window);
    it.stage_pairs = true;
  }

  // Expert parallelism (Megatron's all-to-all token dispatcher): per MoE layer, dispatch and
  // combine in forward, their gradients in backward; each rank sends its tokens' top-k copies
  // (capacity_factor times as many slots when tokens are dropped to a capacity).
  if (model.is_moe() && p.ep > 1 && slow.moe_layers > 0) {
    const double tokens = static_cast<double>(t.micro_batch) * t.seq_length / (p.cp * p.tp);
    const double slots = model.moe.capacity_factor > 0 ? model.moe.capacity_factor : 1.0;
    const double bytes = tokens * model.moe.top_k * slots * model.hidden * act;
    const double calls = 2 * m * slow.moe_layers;
    b.add(TrafficKind::ep, Phase::forward, CollectiveOp::alltoall, "expert.ep", "token dispatch and combine", bytes,
          calls);
    b.add(TrafficKind::ep, Phase::backward, CollectiveOp::alltoall, "expert.ep", "dispatch and combine gradients",
          bytes, calls);
    if (ep_again > 0)
      b.add(TrafficKind::ep, Phase::backward, CollectiveOp::alltoall, "expert.ep",
            "dispatch and combine, recomputed forward", bytes, 2 * m * ep_again);
  }

  // Data parallelism: every stage reduces its own dense gradients over dp-cp and its own expert
  // gradients over expert.dp, all at once. Stages that hold the same parameters form one class
  // with its own items on its own stages' groups; the classes' transfers share the links, and the
  // exposure takes the class that finishes last (exposure_us). A class's windows are its shortest
  // stage's compute, its slack that of its first stage. An expert-DP group of one rank moves
  // nothing.
  const std::vector<StageLayers> stages = job_stages(job);
  struct Class {
    StageParams params;
    StageClass stages;
    int layers = 0;
    double forward_us = 0, backward_us = 0;
  };
  std::vector<Class> classes;
  double slack_us = 0;  // stage s: the backward chunks of stages 0..s-1 still to run
  for (size_t s = 0; s < stages.size(); ++s) {
    const StageParams sp = stage_params(job, stages[s], s == 0, s + 1 == stages.size());
    const StageCompute& sc = compute.stages[s];
    auto it = std::find_if(classes.begin(), classes.end(), [&](const Class& c) { return c.params == sp; });
    if (it == classes.end()) {
      // ZeRO-3 reduces layer by layer in every micro-batch's backward: what its window does not hide
      // stretches each backward, where no cool-down slack absorbs it.
      classes.push_back({sp, {{}, p.zero_stage == 3 ? 0.0 : slack_us}, stages[s].count, sc.forward_us, sc.backward_us});
      it = classes.end() - 1;
    }
    it->stages.stages.push_back(static_cast<int>(s));
    it->layers = std::max(it->layers, stages[s].count);
    it->forward_us = std::min(it->forward_us, sc.forward_us);
    it->backward_us = std::min(it->backward_us, sc.backward_us);
    slack_us += sc.backward_us / v;
  }
  const bool split = classes.size() > 1;
  for (size_t k = 0; k < classes.size(); ++k) {
    const Class& c = classes[k];
    const std::string of = split ? " (" + c.stages.label() + ")" : "";
    const int last_backward = b.window("backward of the last micro-batch" + of, c.backward_us);
    const int first_forward = b.window("forward of the next step's first micro-batch" + of, c.forward_us);
    int fsdp_forward = -1, fsdp_backward = -1;
    if (p.zero_stage == 3) {
      fsdp_forward = b.window("forward compute" + of, m * c.forward_us);
      fsdp_backward = b.window("backward compute" + of, m * c.backward_us);
    }
    const size_t before = out.items.size();
    b.data_parallel("dp-cp", p.dp * p.cp, c.params.dense, "dense", last_backward, first_forward, fsdp_forward,
                    fsdp_backward, c.layers);
    b.data_parallel("expert.dp", job_expert_dp(job), c.params.expert, "expert", last_backward, first_forward,
                    fsdp_forward, fsdp_backward, c.layers);
    if (!split) continue;
    for (size_t i = before; i < out.items.size(); ++i) {
      out.items[i].stage_class = static_cast<int>(k);
      out.items[i].what = c.stages.label() + ": " + out.items[i].what;
    }
    out.stage_classes.push_back(c.stages);
  }
  return out;
}

}  // namespace topoplan

#include "planner/traffic.h"

#include <doctest/doctest.h>

#include "tests/support.h"

namespace topoplan {
namespace {

StepTraffic traffic_of(const Job& j) {
  Result<ComputeEstimate> c = compute_estimate(j, "H100-SXM5");
  REQUIRE(c.ok());
  Result<StepTraffic> t = step_traffic(j, *c);
  REQUIRE(t.ok());
  return *t;
}

std::vector<const TrafficItem*> items_of(const StepTraffic& t, TrafficKind k) {
  std::vector<const TrafficItem*> out;
  for (const TrafficItem& i : t.items)
    if (i.kind == k) out.push_back(&i);
  return out;
}

constexpr double kHidden = 2048.0 * 1024 * 2;  // b s h x 2 bytes = 4 MiB

// test::small_job() with every layer MoE: 8 experts (top-2) of ffn 1024 over ep 2, no TP, dp 4.
Job moe_job() {
  Job j = test::small_job();
  j.model.moe = {8, 2, 1, {}, 1024, 0, 0};
  j.parallel.tp = 1;
  j.parallel.expert_tp = 1;
  j.parallel.sequence_parallel = false;
  j.parallel.dp = 4;
  j.parallel.ep = 2;
  j.training.global_batch = 16;
  return j;
}

}  // namespace

TEST_CASE("traffic: sequence-parallel TP, per pair and micro-batch") {
  StepTraffic t = traffic_of(test::small_job());
  auto tp = items_of(t, TrafficKind::tp);
  // Forward all-gather and reduce-scatter; backward the all-gather of output gradients, the
  // re-gather of inputs and the reduce-scatter of input gradients.
  REQUIRE(tp.size() == 5);
  for (const TrafficItem* i : tp) {
    CHECK(i->bytes == kHidden);
    CHECK(i->calls == 16);  // 4 micro-batches x 2 layers x 2 pairs
    CHECK(i->group == "tp");
  }
  CHECK(tp[0]->op == CollectiveOp::all_gather);
  CHECK(tp[0]->window == -1);
  CHECK(tp[3]->window >= 0);  // the re-gather hides under the column-parallel backward GEMMs
  CHECK(t.windows[static_cast<size_t>(tp[3]->window)].us ==
        doctest::Approx(4 * 2 * t.compute.slowest().column_gemm_forward_us));
}

TEST_CASE("traffic: TP without sequence parallelism all-reduces, forward and backward") {
  Job j = test::small_job();
  j.parallel.sequence_parallel = false;
  StepTraffic t = traffic_of(j);
  auto tp = items_of(t, TrafficKind::tp);
  REQUIRE(tp.size() == 2);
  CHECK(tp[0]->op == CollectiveOp::all_reduce);
  CHECK(tp[0]->phase == Phase::forward);
  CHECK(tp[1]->phase == Phase::backward);
  CHECK(tp[1]->calls == 16);
  // Without SP each TP rank sends the whole activation to the next stage.
  CHECK(items_of(t, TrafficKind::pp)[0]->bytes == kHidden);
}

TEST_CASE("traffic: pipeline sends per schedule slot, 1F1B and interleaved") {
  StepTraffic t = traffic_of(test::small_job());
  auto pp = items_of(t, TrafficKind::pp);
  REQUIRE(pp.size() == 1);
  CHECK(pp[0]->op == CollectiveOp::sendrecv);
  CHECK(pp[0]->stage_pairs);
  CHECK(pp[0]->bytes == kHidden / 2);  // SP: 1/tp of the activation
  CHECK(pp[0]->calls == 5);            // m + pp - 1
  CHECK(pp[0]->window == -1);          // 1F1B blocks on them
  Job j = test::small_job();
  j.model.layers = 8;
  j.parallel.virtual_pipeline_stages = 2;
  StepTraffic v = traffic_of(j);
  const TrafficItem* p = items_of(v, TrafficKind::pp)[0];
  CHECK(p->calls == 9);  // m v + pp - 1 = 8 + 1
  REQUIRE(p->window >= 0);
  const StageCompute& s = v.compute.slowest();
  CHECK(v.windows[static_cast<size_t>(p->window)].us == doctest::Approx(9 * (s.forward_us + s.backward_us) / 2));
}

TEST_CASE("traffic: data-parallel gradients and parameters with the distributed optimizer") {
  StepTraffic t = traffic_of(test::small_job());
  auto dp = items_of(t, TrafficKind::dp);
  REQUIRE(dp.size() == 2);
  // Stage 0: 2 layers x (attention 1024 x 4096 + MLP 2 x 1024 x 4096) + embedding 32000 x 1024,
  // over tp 2 = 28,966,912 parameters: one bucket (Megatron's is at least 40M).
  const double params = (2 * (1024.0 * 4096 + 2 * 1024.0 * 4096) + 32000.0 * 1024) / 2;
  CHECK(dp[0]->op == CollectiveOp::reduce_scatter);
  CHECK(dp[0]->group == "dp-cp");
  CHECK(dp[0]->calls == 1);
  CHECK(dp[0]->bytes == params * 4);  // fp32 gradient reduction
  CHECK(dp[0]->unhidden_calls == 1);
  CHECK(dp[1]->op == CollectiveOp::all_gather);
  CHECK(dp[1]->bytes == params * 2);  // bf16 parameters
  CHECK(dp[1]->phase == Phase::optimizer);

  Job j = test::small_job();
  j.parallel.zero_stage = 0;
  j.parallel.bucket_params = 10'000'000;
  j.parallel.overlap_grad_reduce = false;
  const StepTraffic no_overlap = traffic_of(j);  // items_of points into it: keep it alive (ASan)
  auto ar = items_of(no_overlap, TrafficKind::dp);
  REQUIRE(ar.size() == 1);
  CHECK(ar[0]->op == CollectiveOp::all_reduce);
  CHECK(ar[0]->calls == 3);  // ceil(28.97M / 10M)
  CHECK(ar[0]->bytes == doctest::Approx(params / 3 * 4));
  CHECK(ar[0]->window == -1);
}

TEST_CASE("traffic: ZeRO-3 gathers and reduces per layer, every micro-batch") {
  Job j = test::small_job();
  j.parallel.zero_stage = 3;
  const StepTraffic t = traffic_of(j);
  auto dp = items_of(t, TrafficKind::dp);
  REQUIRE(dp.size() == 3);
  const double params = (2 * (1024.0 * 4096 + 2 * 1024.0 * 4096) + 32000.0 * 1024) / 2;
  for (const TrafficItem* i : dp) CHECK(i->calls == 8);  // 4 micro-batches x 2 layers
  CHECK(dp[0]->bytes == doctest::Approx(params / 2 * 2));
  CHECK(dp[2]->op == CollectiveOp::reduce_scatter);
  CHECK(dp[2]->bytes == doctest::Approx(params / 2 * 4));
}

TEST_CASE("traffic: context parallelism's K/V ring") {
  Job j = test::small_job();
  j.parallel.cp = 2;
  j.parallel.dp = 1;
  j.training.global_batch = 4;
  j.model.kv_heads = 4;  // GQA: K and V are 4 heads of 64
  StepTraffic t = traffic_of(j);
  auto cp = items_of(t, TrafficKind::cp);
  REQUIRE(cp.size() == 2);
  // K and V of the whole sequence on this TP rank: 2 x 2048 x (4 x 64 / 2) x 2 bytes.
  CHECK(cp[0]->bytes == 2.0 * 2048 * 128 * 2);
  CHECK(cp[0]->algo == NcclAlgo::ring);
  CHECK(cp[1]->bytes == 2 * cp[0]->bytes);  // K/V again and their gradients
  CHECK(cp[0]->calls == 8);                 // 4 micro-batches x 2 layers
  // Each CP rank holds s / cp of the sequence: TP's activations halve.
  CHECK(items_of(t, TrafficKind::tp)[0]->bytes == kHidden / 2);
}

TEST_CASE("traffic: expert parallelism's all-to-all and expert gradients") {
  Job j = moe_job();
  StepTraffic t = traffic_of(j);
  auto ep = items_of(t, TrafficKind::ep);
  REQUIRE(ep.size() == 2);
  CHECK(ep[0]->op == CollectiveOp::alltoall);
  CHECK(ep[0]->bytes == 2048.0 * 2 * 1024 * 2);  // tokens x top-2 x h x 2 bytes
  CHECK(ep[0]->calls == 2 * 4 * 2);              // dispatch + combine, 4 micro-batches, 2 MoE layers
  j.model.moe.capacity_factor = 1.25;
  const StepTraffic capped = traffic_of(j);
  CHECK(items_of(capped, TrafficKind::ep)[0]->bytes == doctest::Approx(2048.0 * 2 * 1.25 * 1024 * 2));
  auto dp = items_of(t, TrafficKind::dp);
  REQUIRE(dp.size() == 4);  // dense and expert: reduce-scatter + all-gather each
  CHECK(dp[2]->group == "expert.dp");
  // 2 MoE layers x 8/2 local experts x 2 x 1024 x 1024 parameters, fp32 gradients.
  CHECK(dp[2]->bytes == 2 * 4 * 2 * 1024.0 * 1024 * 4);
}

}  // namespace topoplan

namespace topoplan {

TEST_CASE("traffic: full recomputation runs forward communication again in backward") {
  Job j = test::small_job();
  j.training.recompute = {Recompute::full, RecomputeMethod::uniform, 1, {}};
  StepTraffic t = traffic_of(j);
  auto tp = items_of(t, TrafficKind::tp);
  // The forward all-gather and reduce-scatter again, in backward, for every layer.
  REQUIRE(tp.size() == 7);
  CHECK(tp[2]->phase == Phase::backward);
  CHECK(tp[2]->op == CollectiveOp::all_gather);
  CHECK(tp[2]->what == "layer inputs, recomputed forward");
  CHECK(tp[2]->calls == 16);
  CHECK(tp[3]->op == CollectiveOp::reduce_scatter);
  // The last micro-batch's backward, which gradients hide under, grows by the recomputation.
  const StageCompute& last = t.compute.slowest();
  CHECK(last.recompute_us == doctest::Approx(t.compute.stages[0].forward_us));  // the logits are not recomputed
  CHECK(last.recompute_us < last.forward_us);

  // "block" with 1 of each stage's 2 layers: half the pairs again.
  j.training.recompute.method = RecomputeMethod::block;
  const StepTraffic block = traffic_of(j);
  CHECK(items_of(block, TrafficKind::tp)[2]->calls == 8);
}

TEST_CASE("traffic: selective recomputation repeats only what its modules communicate") {
  Job j = test::small_job();
  j.parallel.cp = 2;
  j.parallel.dp = 1;
  j.training.global_batch = 4;
  j.training.recompute = {Recompute::selective, RecomputeMethod::uniform, 0, {RecomputeModule::core_attn}};
  StepTraffic t = traffic_of(j);
  // Core attention holds context parallelism's K/V ring, not TP's all-gathers.
  CHECK(items_of(t, TrafficKind::tp).size() == 5);
  auto cp = items_of(t, TrafficKind::cp);
  REQUIRE(cp.size() == 3);
  CHECK(cp[2]->what == "K/V ring (p2p), recomputed forward");
  CHECK(cp[2]->bytes == cp[0]->bytes);
  CHECK(cp[2]->calls == cp[0]->calls);
  REQUIRE(cp[2]->window >= 0);
  CHECK(t.windows[static_cast<size_t>(cp[2]->window)].us ==
        doctest::Approx(4 * t.compute.slowest().attention_core_forward_us));
  // A dense MLP's recomputation repeats its TP pair: one of each layer's two.
  j.training.recompute.modules = {RecomputeModule::mlp};
  const StepTraffic mlp = traffic_of(j);
  auto tp = items_of(mlp, TrafficKind::tp);
  REQUIRE(tp.size() == 7);
  CHECK(tp[2]->calls == 4 * 2);  // 4 micro-batches x 2 layers x 1 MLP pair
}

TEST_CASE("traffic: tp_comm_overlap hides sequence parallelism's collectives under their GEMMs") {
  Job j = test::small_job();
  j.parallel.tp_comm_overlap = true;
  StepTraffic t = traffic_of(j);
  auto tp = items_of(t, TrafficKind::tp);
  REQUIRE(tp.size() == 5);
  const StageCompute& s = t.compute.slowest();
  for (const TrafficItem* i : tp) REQUIRE(i->window >= 0);
  CHECK(t.windows[static_cast<size_t>(tp[0]->window)].us ==
        doctest::Approx(4 * (s.column_gemm_forward_us + s.row_gemm_forward_us)));
  CHECK(tp[1]->window == tp[0]->window);
  CHECK(t.windows[static_cast<size_t>(tp[2]->window)].us == doctest::Approx(4 * 2 * s.row_gemm_forward_us));
  // The row-parallel GEMMs: attention output and fc2, h x h and 4h x h, over tp 2 at 5e8 FLOP/us,
  // in whole waves, at the calibration's efficiency.
  CHECK(s.row_gemm_forward_us ==
        doctest::Approx(2 * (2.0 * 2048 * 1024 * 1024 * 5) / 2 / 5e8 / t.compute.efficiency));
}

// DeepSeek-V3's first stage holds the embedding and dense layers, the others experts: each stage
// reduces its own gradients on its own groups.
TEST_CASE("traffic: each stage class reduces its own dense and expert gradients") {
  Job j = moe_job();
  j.model.moe.layer_pattern = {0, 0, 1, 1};
  j.parallel.ep = 1;
  const StepTraffic t = traffic_of(j);
  REQUIRE(t.stage_classes.size() == 2);
  CHECK(t.stage_classes[0].stages == std::vector<int>{0});
  CHECK(t.stage_classes[1].stages == std::vector<int>{1});
  CHECK(t.stage_classes[0].slack_us == 0);
  // Stage 1's last backward ends one backward of stage 0 earlier (1F1B, no virtual stages).
  CHECK(t.stage_classes[1].slack_us == doctest::Approx(t.compute.stages[0].backward_us));
  // ZeRO-3's per-layer reductions run in every backward: no slack hides them.
  Job zero3 = j;
  zero3.parallel.zero_stage = 3;
  const StepTraffic z = traffic_of(zero3);
  REQUIRE(z.stage_classes.size() == 2);
  CHECK(z.stage_classes[1].slack_us == 0);
  auto dp = items_of(t, TrafficKind::dp);
  // Stage 0: dense only; stage 1: dense and expert, a reduce-scatter and an all-gather each.
  REQUIRE(dp.size() == 6);
  CHECK(dp[0]->stage_class == 0);
  CHECK(dp[0]->what == "stage 0: dense gradients, per bucket");
  // Stage 0: 2 dense layers (attention 4 x 1024^2, MLP 2 x 1024 x 4096) and the embedding, 57.9M
  // parameters in two buckets of fp32 gradients.
  CHECK(dp[0]->calls == 2);
  CHECK(dp[0]->calls * dp[0]->bytes == (2 * (4 * 1024.0 * 1024 + 2 * 1024.0 * 4096) + 32000.0 * 1024) * 4);
  CHECK(dp[2]->stage_class == 1);
  CHECK(dp[2]->group == "dp-cp");
  // Stage 1: 2 MoE layers' attention and router (1024 x 8), and the output layer.
  CHECK(dp[2]->calls * dp[2]->bytes == doctest::Approx((2 * (4 * 1024.0 * 1024 + 1024 * 8) + 32000.0 * 1024) * 4));
  CHECK(dp[4]->group == "expert.dp");
  CHECK(dp[4]->what == "stage 1: expert gradients, per bucket");
  CHECK(dp[4]->bytes == 2 * 8 * 2 * 1024.0 * 1024 * 4);  // 2 layers x 8 experts x 2 x 1024 x 1024
  // Each class hides its gradients behind its own stage's last backward.
  CHECK(t.windows[static_cast<size_t>(dp[0]->window)].us == t.compute.stages[0].backward_us);
  CHECK(t.windows[static_cast<size_t>(dp[4]->window)].us == t.compute.stages[1].backward_us);
  // With ep 4 the expert data-parallel group has 1 rank: nothing to reduce.
  j.parallel.ep = 4;
  const StepTraffic one_rank = traffic_of(j);
  CHECK(items_of(one_rank, TrafficKind::dp).size() == 4);
  // Stages that hold the same parameters are one class, and their items carry no stage label.
  const StepTraffic dense = traffic_of(test::small_job());
  CHECK(dense.stage_classes.empty());
  CHECK(items_of(dense, TrafficKind::dp)[0]->stage_class == -1);
}

}  // namespace topoplan

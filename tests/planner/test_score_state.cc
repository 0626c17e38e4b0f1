#include "planner/score_state.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "cost/calibration.h"
#include "cost/comm_group.h"
#include "cost/nccl_tuning.h"
#include "cost/transfers.h"
#include "planner/rank_groups.h"
#include "tests/support.h"
#include "topology/fabric.h"

using namespace topoplan;

namespace {

Cluster pods(int nodes, const std::string& node, int per_su = 4, int per_pod = 8, double leaf_oversubscription = 1) {
  ClusterSpec spec;
  spec.name = "pods";
  spec.node = *node_type_named(node);
  spec.nodes = nodes;
  spec.fabric.nodes_per_su = per_su;
  spec.fabric.nodes_per_pod = per_pod;
  spec.fabric.pod_oversubscription = 4;
  spec.fabric.leaf_oversubscription = leaf_oversubscription;
  Result<Cluster> c = cluster_build(spec);
  REQUIRE_MESSAGE(c.ok(), (c ? "" : c.error()));
  return std::move(*c);
}

// A small MoE job with every kind of traffic: TP 2 with SP, CP 2, DP 8, EP 4 over hosts, PP 2
// interleaved.
Job moe_job() {
  Job j = test::small_job();
  j.model.layers = 8;
  j.model.moe.experts = 8;
  j.model.moe.top_k = 2;
  j.model.moe.ffn_hidden = 1024;
  j.parallel.cp = 2;
  j.parallel.ep = 4;
  j.parallel.expert_tp = 1;
  j.parallel.dp = 8;
  j.parallel.virtual_pipeline_stages = 2;
  j.training.global_batch = 16;
  return j;
}

void check_same(const ScoreState& moved, const ScoreState& fresh) {
  REQUIRE(moved.item_count() == fresh.item_count());
  CHECK(moved.exposed_us() == doctest::Approx(fresh.exposed_us()).epsilon(1e-9));
  CHECK(moved.comm_us() == doctest::Approx(fresh.comm_us()).epsilon(1e-9));
  for (size_t i = 0; i < moved.item_count(); ++i) {
    CHECK(moved.item_time(i).contended_us == doctest::Approx(fresh.item_time(i).contended_us).epsilon(1e-9));
    CHECK(moved.item_time(i).slowest_group == fresh.item_time(i).slowest_group);
  }
  const LevelBytes a = moved.level_bytes(), b = fresh.level_bytes();
  for (int l = 0; l < kFabricLevels; ++l)
    CHECK(a[static_cast<size_t>(l)] == doctest::Approx(b[static_cast<size_t>(l)]).epsilon(1e-9));
}

// A move on the first 8 hosts of 8 ranks each: two hosts' ranks swapped (every local slot) on
// two steps of three, else two single ranks.
std::vector<std::pair<int, int>> random_move(std::mt19937& rng, int step) {
  std::vector<std::pair<int, int>> pairs;
  std::uniform_int_distribution<int> host(0, 7), rank(0, 63);
  if (step % 3 != 2) {
    const int a = host(rng), b = host(rng);
    for (int k = 0; k < 8; ++k) pairs.emplace_back(8 * a + k, 8 * b + k);
  } else {
    pairs.emplace_back(rank(rng), rank(rng));
  }
  return pairs;
}

// Stage 0 dense (layers 0-1 and 4-5), stage 1 MoE: two stage classes reduce on their own groups.
Job split_moe_job() {
  Job j = moe_job();
  j.model.moe.layer_pattern = {0, 0, 1, 1, 0, 0, 1, 1};
  return j;
}

// A job on 16 DGX H100 pods, ranks in the default layout.
struct OnPods {
  explicit OnPods(Job j) : job(std::move(j)) {
    Result<Layout> l = layout_default(c, job_ranks(job));
    REQUIRE(l.ok());
    start = std::move(*l);
  }
  Cluster c = pods(16, "dgx-h100");
  Router r{c};
  Job job;
  Layout start;
};

}  // namespace

TEST_CASE("score state: moves re-score to what a fresh score of the new layout gives") {
  for (const char* node : {"dgx-h100", "pcie-l40s"})
    for (const Job& job : {moe_job(), split_moe_job()}) {
      CAPTURE(node);
      CAPTURE(job.model.moe.layer_pattern.size());
      Cluster c = pods(16, node);
      Router r(c);
      REQUIRE(job_ranks(job) == 64);
      for (FabricMode fabric : {FabricMode::shared, FabricMode::idle}) {
        ScoreOptions opt;
        opt.fabric = fabric;
        // Ranks on 8 of the 16 hosts, two pods, so the shared fabric binds.
        Result<Layout> start = layout_default(c, job_ranks(job));
        REQUIRE(start.ok());
        Result<std::unique_ptr<ScoreState>> state = ScoreState::make(c, r, job, *start, opt);
        REQUIRE_MESSAGE(state.ok(), (state ? "" : state.error()));
        std::mt19937 rng(7);
        const double before = (*state)->exposed_us();
        for (int step = 0; step < 12; ++step) {
          const std::vector<std::pair<int, int>> pairs = random_move(rng, step);
          REQUIRE((*state)->exchange(pairs).ok());
          Result<std::unique_ptr<ScoreState>> fresh = ScoreState::make(c, r, job, (*state)->layout(), opt);
          REQUIRE(fresh.ok());
          check_same(**state, **fresh);
        }
        // Undo everything by replaying: exchanging the same pairs again restores the start.
        Result<std::unique_ptr<ScoreState>> again = ScoreState::make(c, r, job, *start, opt);
        REQUIRE(again.ok());
        CHECK((*again)->exposed_us() == doctest::Approx(before).epsilon(1e-12));
      }
    }
}

TEST_CASE("score state: moves over pods re-time every group whose fabric links they load") {
  // Small leaves and pods, oversubscribed: the job's 8 hosts span four leaves and two pods, and a
  // move's traffic lands on uplinks that other groups' fabric segments climb too.
  const Cluster c = pods(16, "dgx-h100", 2, 4, 2);
  const Router r(c);
  const Job job = moe_job();
  Result<Layout> start = layout_default(c, job_ranks(job));
  REQUIRE(start.ok());
  Result<std::unique_ptr<ScoreState>> state = ScoreState::make(c, r, job, *start, {});
  REQUIRE(state.ok());
  std::mt19937 rng(11);
  for (int step = 0; step < 24; ++step) {
    REQUIRE((*state)->exchange(random_move(rng, step)).ok());
    Result<std::unique_ptr<ScoreState>> fresh = ScoreState::make(c, r, job, (*state)->layout(), {});
    REQUIRE(fresh.ok());
    check_same(**state, **fresh);
  }
}

TEST_CASE("score state: another background re-times to what a fresh score beside it gives") {
  const OnPods on(moe_job());
  const auto& [c, r, job, start] = on;
  // Two backgrounds loading different links by different amounts, some links in both.
  Background a, b;
  for (EdgeId e = 0; e < c.num_edges(); ++e) {
    if (e % 3 == 0) a.utilization.emplace_back(e, 0.25 + 0.5 * static_cast<double>(e % 7) / 7);
    if (e % 2 == 0) b.utilization.emplace_back(e, 0.9 - 0.1 * static_cast<double>(e % 5));
  }
  for (FabricMode fabric : {FabricMode::shared, FabricMode::idle}) {
    CAPTURE(to_string(fabric));
    ScoreOptions opt;
    opt.fabric = fabric;
    opt.background = &a;
    Result<std::unique_ptr<ScoreState>> state = ScoreState::make(c, r, job, start, opt);
    REQUIRE(state.ok());
    const double beside_a = (*state)->exposed_us();
    for (const Background* bg : std::vector<const Background*>{&b, nullptr, &a}) {
      (*state)->set_background(bg);
      ScoreOptions fresh_opt = opt;
      fresh_opt.background = bg;
      Result<std::unique_ptr<ScoreState>> fresh = ScoreState::make(c, r, job, start, fresh_opt);
      REQUIRE(fresh.ok());
      check_same(**state, **fresh);
      // The backgrounds bind: each gives another step.
      if (bg != &a) CHECK((*state)->exposed_us() != doctest::Approx(beside_a).epsilon(1e-3));
    }
    CHECK((*state)->exposed_us() == doctest::Approx(beside_a).epsilon(1e-12));
    // Moves after it score as a fresh state beside that background does.
    (*state)->set_background(&b);
    ScoreOptions beside_b = opt;
    beside_b.background = &b;
    std::mt19937 rng(11);
    for (int step = 0; step < 6; ++step) {
      REQUIRE((*state)->exchange(random_move(rng, step)).ok());
      Result<std::unique_ptr<ScoreState>> fresh = ScoreState::make(c, r, job, (*state)->layout(), beside_b);
      REQUIRE(fresh.ok());
      check_same(**state, **fresh);
    }
  }
}

TEST_CASE("score state: undo is exchanging the same pairs again, to the last bit") {
  const OnPods on(moe_job());
  const auto& [c, r, job, start] = on;
  Result<std::unique_ptr<ScoreState>> undone = ScoreState::make(c, r, job, start);
  Result<std::unique_ptr<ScoreState>> swapped = ScoreState::make(c, r, job, start);
  REQUIRE(undone.ok());
  REQUIRE(swapped.ok());
  CHECK_FALSE((*undone)->undo().ok());  // nothing to undo yet
  std::mt19937 rng(11);
  for (int step = 0; step < 12; ++step) {
    const std::vector<std::pair<int, int>> pairs = random_move(rng, step);
    // Both take the move; one keeps every other move, undoing the rest, the other swaps back.
    REQUIRE((*undone)->exchange(pairs).ok());
    REQUIRE((*swapped)->exchange(pairs).ok());
    if (step % 2 == 0) {
      REQUIRE((*undone)->undo().ok());
      REQUIRE((*swapped)->exchange(pairs).ok());
      CHECK_FALSE((*undone)->undo().ok());  // an undo is not undone
    }
    CHECK((*undone)->layout().gpu_of_rank == (*swapped)->layout().gpu_of_rank);
    CHECK((*undone)->exposed_us() == (*swapped)->exposed_us());
    CHECK((*undone)->comm_us() == (*swapped)->comm_us());
    CHECK((*undone)->level_bytes() == (*swapped)->level_bytes());
    for (size_t i = 0; i < (*undone)->item_count(); ++i) {
      CHECK((*undone)->item_time(i).contended_us == (*swapped)->item_time(i).contended_us);
      CHECK((*undone)->item_time(i).slowest_group == (*swapped)->item_time(i).slowest_group);
    }
  }
}

TEST_CASE("score state: a stage class's items run on its own stages' groups only") {
  const OnPods on(split_moe_job());
  const auto& [c, r, job, layout] = on;
  Result<std::unique_ptr<ScoreState>> made = ScoreState::make(c, r, job, layout);
  REQUIRE_MESSAGE(made.ok(), (made ? "" : made.error()));
  const ScoreState& st = **made;
  const StepTraffic& t = st.traffic();
  REQUIRE(t.stage_classes.size() == 2);
  Result<RankGroups> groups = RankGroups::make(job_parallel_sizes(job), job.parallel.order);
  REQUIRE(groups.ok());
  const GroupList dp = *groups->groups("dp-cp"), pp = *groups->groups("pp");
  std::vector<int> stage_of(64);
  for (const std::vector<int>& pipeline : pp)
    for (size_t k = 0; k < pipeline.size(); ++k) stage_of[static_cast<size_t>(pipeline[k])] = static_cast<int>(k);
  size_t seen = 0;
  for (size_t i = 0; i < st.item_count(); ++i) {
    const TrafficItem& it = t.items[i];
    if (it.group != "dp-cp" || it.stage_class < 0) continue;
    ++seen;
    const int stage = t.stage_classes[static_cast<size_t>(it.stage_class)].stages.front();
    // Half the dp-cp groups (tp 2 x 2 stages = 4 groups of 16), each in the item's stage, and
    // each found again by its index in the whole list.
    REQUIRE(st.item_groups(i).size() == dp.size() / 2);
    for (size_t g = 0; g < st.item_groups(i).size(); ++g) {
      const int index = st.list_index(i, g);
      CHECK(st.group_ranks(i, g) == dp[static_cast<size_t>(index)]);
      CHECK(stage_of[static_cast<size_t>(st.group_ranks(i, g).front())] == stage);
      CHECK(st.groups_of(i, index) == std::vector<size_t>{g});
    }
    // The other stage's groups are not the item's.
    for (size_t index = 0; index < dp.size(); ++index)
      if (stage_of[static_cast<size_t>(dp[index].front())] != stage)
        CHECK(st.groups_of(i, static_cast<int>(index)).empty());
  }
  CHECK(seen == 4);  // each stage: dense gradients and parameters

  // Each item's own load is its own groups' transfers: one load for a class's two items, which
  // move the same bytes over the same groups, another for the other class.
  std::vector<const LinkLoad*> loads;
  for (size_t i = 0; i < st.item_count(); ++i) {
    if (t.items[i].group != "dp-cp" || t.items[i].stage_class < 0) continue;
    const LinkLoad& own = st.item_load(i);
    if (std::find(loads.begin(), loads.end(), &own) == loads.end()) loads.push_back(&own);
    std::vector<double> bytes(c.num_edges(), 0);
    LinkLoad one(r, calibration_default());
    for (size_t g = 0; g < st.item_groups(i).size(); ++g) {
      REQUIRE(st.group_load(i, g, one).ok());
      for (EdgeId e : one.loaded()) bytes[e] += one.bytes(e);
    }
    for (EdgeId e = 0; e < c.num_edges(); ++e) CHECK(own.bytes(e) == doctest::Approx(bytes[e]).epsilon(1e-12));
  }
  CHECK(loads.size() == 2);
}

// Groups inside one host take the transfers of the same group on the first host built alike,
// shifted: each is what NCCL's communicator for the group itself gives.
TEST_CASE("score state: one-host groups move what their own communicator moves") {
  const OnPods on(moe_job());
  const Cluster& c = on.c;  // not a structured binding: clang 14 does not capture those
  const Router& r = on.r;
  const Job& job = on.job;
  const Layout& layout = on.start;
  Result<std::unique_ptr<ScoreState>> made = ScoreState::make(c, r, job, layout);
  REQUIRE_MESSAGE(made.ok(), (made ? "" : made.error()));
  const ScoreState& st = **made;
  const Calibration& cal = calibration_default();
  size_t checked = 0;
  for (size_t i = 0; i < st.item_count(); ++i) {
    const TrafficItem& item = st.traffic().items[i];
    if (item.op == CollectiveOp::sendrecv) continue;
    for (size_t g = 0; g < st.item_groups(i).size(); ++g) {
      const std::vector<VertexId>& gpus = st.item_groups(i)[g];
      const int host = c.device(gpus.front()).host;
      if (host == 0 || !std::all_of(gpus.begin(), gpus.end(), [&](VertexId v) { return c.device(v).host == host; }))
        continue;
      REQUIRE(r.host_twin(host).has_value());
      const CollectivePrediction& p = st.item_alone(i, g);
      Result<CommGroup> group = comm_group_make(c, r, gpus);
      REQUIRE(group.ok());
      Result<std::vector<Transfer>> direct = collective_transfers(
          *group, item.op, p.algo, 1.0, {p.channels, nccl_tuning_default().p2p_net_channels_per_peer});
      REQUIRE(direct.ok());
      LinkLoad want(r, cal), got(r, cal);
      REQUIRE(want.add(*direct).ok());
      REQUIRE(st.group_load(i, g, got).ok());
      REQUIRE(got.loaded().size() == want.loaded().size());
      for (EdgeId e : want.loaded()) CHECK(got.bytes(e) == want.bytes(e));
      ++checked;
    }
  }
  CHECK(checked > 0);
}

// Two stage classes: the later class's reduction hides its slack; only the class that finishes
// last counts, in the reduction and in the optimizer's gathers separately.
TEST_CASE("score state: exposure takes the stage class that finishes last") {
  StepTraffic t;
  t.stage_classes = {{{0}, 0}, {{1, 2}, 300}};
  auto add = [&](Phase phase, int cls, double calls) {
    TrafficItem it;
    it.kind = TrafficKind::dp;
    it.phase = phase;
    it.calls = calls;
    it.stage_class = cls;
    t.items.push_back(it);
  };
  add(Phase::backward, 0, 2);   // 200 us exposed, no slack
  add(Phase::backward, 1, 5);   // 500 us exposed, 300 us of slack: 200 us late
  add(Phase::optimizer, 0, 1);  // 100 us
  add(Phase::optimizer, 1, 3);  // 300 us
  add(Phase::forward, -1, 1);   // 100 us, every group
  std::vector<double> per_item;
  const double total = exposure_us(t, std::vector<double>(5, 100), &per_item);
  // Reduction: the first class (200 us, ties go to the first); gathers: the second (300 us).
  CHECK(total == doctest::Approx(200 + 300 + 100));
  CHECK(per_item == std::vector<double>{200, 0, 0, 300, 100});
  // A smaller first class: the second's 200 us past its slack decide.
  t.items[0].calls = 1;
  exposure_us(t, std::vector<double>(5, 100), &per_item);
  CHECK(per_item[0] == 0);
  CHECK(per_item[1] == doctest::Approx(200));
}

TEST_CASE("score state: a rank outside the job is refused") {
  Cluster c = test::load_cluster("dgx-h100:2");
  Router r(c);
  Job job = test::small_job();
  Result<Layout> layout = layout_default(c, job_ranks(job));
  REQUIRE(layout.ok());
  Result<std::unique_ptr<ScoreState>> state = ScoreState::make(c, r, job, *layout);
  REQUIRE(state.ok());
  std::vector<std::pair<int, int>> bad = {{0, 8}};
  Result<void> r8 = (*state)->exchange(bad);
  REQUIRE_FALSE(r8.ok());
  CHECK(r8.error() == "exchange: rank out of range 0-7");
}

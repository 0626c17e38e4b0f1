#include "planner/score_state.h"

#include <doctest/doctest.h>

#include <random>

#include "tests/support.h"
#include "topology/fabric.h"

using namespace topoplan;

namespace {

Cluster pods(int nodes, const std::string& node) {
  ClusterSpec spec;
  spec.name = "pods";
  spec.node = *node_type_named(node);
  spec.nodes = nodes;
  spec.fabric.nodes_per_su = 4;
  spec.fabric.nodes_per_pod = 8;
  spec.fabric.pod_oversubscription = 4;
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
  for (int l = 0; l < kFabricLevels; ++l) CHECK(a[static_cast<size_t>(l)] == doctest::Approx(b[static_cast<size_t>(l)]).epsilon(1e-9));
}

}  // namespace

TEST_CASE("score state: moves re-score to what a fresh score of the new layout gives") {
  for (const char* node : {"dgx-h100", "pcie-l40s"}) {
    CAPTURE(node);
    Cluster c = pods(16, node);
    Router r(c);
    const Job job = moe_job();
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
        // Swap two hosts' ranks (every local slot), or two single ranks.
        std::vector<std::pair<int, int>> pairs;
        std::uniform_int_distribution<int> host(0, 7), rank(0, 63);
        if (step % 3 != 2) {
          int a = host(rng), b = host(rng);
          for (int k = 0; k < 8; ++k) pairs.emplace_back(8 * a + k, 8 * b + k);
        } else {
          pairs.emplace_back(rank(rng), rank(rng));
        }
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

TEST_CASE("score state: a rank outside the job is refused") {
  Cluster c = test::load_cluster("dgx-h100:2");
  Router r(c);
  Job job = test::small_job();
  Result<Layout> layout = layout_default(c, job_ranks(job));
  REQUIRE(layout.ok());
  Result<std::unique_ptr<ScoreState>> state = ScoreState::make(c, r, job, *layout);
  REQUIRE(state.ok());
  std::vector<std::pair<int, int>> bad = {{0, 8}};
  Result<bool> r8 = (*state)->exchange(bad);
  REQUIRE_FALSE(r8.ok());
  CHECK(r8.error() == "exchange: rank out of range 0-7");
}

#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "observe/observed_traffic.h"
#include "observe/scored_traffic.h"
#include "observe/traffic_compare.h"
#include "observe/traffic_compare_json.h"
#include "planner/score.h"
#include "tests/observe/job_log.h"
#include "tests/support.h"

using namespace topoplan;

namespace {

// tiny-8 (tp 2, pp 2, dp 2) on one DGX H100, its modelled traffic, and a log of it.
struct Tiny {
  Cluster c = test::load_cluster("dgx-h100:1");
  Job job = *job_load((test::data_dir() / "jobs/tiny-8.json").string());
  Layout layout = *layout_default(c, 8);
  StepTraffic model = *step_traffic(job, *compute_estimate(job, "H100"));
  ObservedTraffic observed(const test::JobLogOptions& o = {}) const {
    Result<NcclLog> log = nccl_log_parse(test::job_log(c, job, layout, model, o), "job.log");
    REQUIRE_MESSAGE(log.ok(), log.error());
    Result<ObservedTraffic> t = observed_traffic(*log, std::nullopt);
    REQUIRE_MESSAGE(t.ok(), t.error());
    return *t;
  }
};

double exposed_s(const Tiny& t, const StepTraffic* traffic) {
  Router router(t.c);
  ScoreOptions o;
  o.traffic = traffic;
  Result<JobScore> s = score_job(t.c, router, t.job, t.layout, o);
  REQUIRE_MESSAGE(s.ok(), s.error());
  return s->exposed_comm_s;
}

}  // namespace

TEST_CASE("observed_traffic: communicators, the step found in the calls, setup apart") {
  const Tiny t;
  const ObservedTraffic o = t.observed();
  CHECK(o.version == "2.21.5");
  CHECK(o.steps == 3);
  CHECK(o.steps_from.find("3 repeats") != std::string::npos);
  // 4 tp, 4 pp, 4 dp and the world communicator.
  REQUIRE(o.comms.size() == 13);
  int dp = 0;
  for (const ObservedComm& c : o.comms) {
    CHECK(c.members.size() == static_cast<size_t>(c.nranks));
    if (c.nranks == 2 && !c.setup.empty()) {
      ++dp;
      CHECK(c.setup[0].op == "Broadcast");
      CHECK(c.setup[0].calls == 1);
      // A reduce-scatter and an all-gather per step, of the model's sizes.
      REQUIRE(c.per_step.size() == 2);
      CHECK(c.per_step[0].op == "ReduceScatter");
      CHECK(c.per_step[0].calls == 1);
    }
  }
  CHECK(dp == 4);
  const ObservedComm& world = o.comms.back();
  CHECK(world.nranks == 8);
  REQUIRE(world.per_step.size() == 1);
  CHECK(world.per_step[0].calls == 2);
  CHECK(world.per_step[0].bytes == 4);
}

TEST_CASE("observed_traffic: a log without repeats is one step and says so; --steps wins") {
  const Tiny t;
  test::JobLogOptions one;
  one.steps = 1;
  Result<NcclLog> log = nccl_log_parse(test::job_log(t.c, t.job, t.layout, t.model, one), "one.log");
  REQUIRE(log.ok());
  Result<ObservedTraffic> o = observed_traffic(*log, std::nullopt);
  REQUIRE(o.ok());
  // The pipeline's Send/Recv pairs repeat within the step, so one step is still found.
  CHECK(o->steps >= 1);
  Result<ObservedTraffic> given = observed_traffic(*log, 1.0);
  REQUIRE(given.ok());
  CHECK(given->steps == 1);
  CHECK(given->steps_from == "--steps");
}

TEST_CASE("observed_traffic: JSON round trip and malformed documents") {
  const Tiny t;
  const ObservedTraffic o = t.observed();
  const nlohmann::json j = observed_traffic_to_json(o);
  Result<ObservedTraffic> back = observed_traffic_from_json(j, "t.json");
  REQUIRE_MESSAGE(back.ok(), back.error());
  CHECK(observed_traffic_to_json(*back) == j);
  nlohmann::json bad = j;
  bad["comms"][0]["members"][1]["rank"] = 0;
  Result<ObservedTraffic> twice = observed_traffic_from_json(bad, "t.json");
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.error() == "t.json: comms[0].members[1].rank: rank 0 listed twice");
  bad = j;
  bad["comms"][2]["per_step"][0]["bytes"] = -1;
  REQUIRE_FALSE(observed_traffic_from_json(bad, "t.json").ok());
  bad = j;
  bad.erase("comms");
  Result<ObservedTraffic> none = observed_traffic_from_json(bad, "t.json");
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().find("comms") != std::string::npos);
}

TEST_CASE("traffic_compare: the log of the model's traffic matches it; what differs is named") {
  const Tiny t;
  Result<std::vector<TrafficRow>> rows = traffic_beside_model(t.observed(), t.job, t.model, 1.5);
  REQUIRE(rows.ok());
  bool world = false;
  for (const TrafficRow& r : *rows) {
    INFO(r.group_size, " ", r.op);
    if (r.group_size == 8) {
      world = true;
      CHECK(r.verdict == TrafficRow::Verdict::model_lacks);
      continue;
    }
    CHECK(r.verdict == TrafficRow::Verdict::ok);
    CHECK(r.observed_bytes == doctest::Approx(r.model_bytes).epsilon(0.01));
  }
  CHECK(world);
  // Buckets four times the model's: data parallelism is under-counted.
  test::JobLogOptions big;
  big.dp_bytes_scale = 4;
  rows = traffic_beside_model(t.observed(big), t.job, t.model, 1.5);
  REQUIRE(rows.ok());
  int under = 0;
  for (const TrafficRow& r : *rows)
    if (r.verdict == TrafficRow::Verdict::model_under_counts) {
      ++under;
      CHECK(std::find(r.kinds.begin(), r.kinds.end(), "dp") != r.kinds.end());
    }
  CHECK(under > 0);
}

TEST_CASE("scored_traffic: the model's traffic, logged, scores as the model does") {
  const Tiny t;
  Result<ScoredTraffic> s = scored_traffic(t.observed(), t.c, t.job, t.layout, t.model);
  REQUIRE_MESSAGE(s.ok(), s.error());
  CHECK(s->matched.size() == 12);
  // The world communicator is no group of the job: named, left out.
  REQUIRE(s->unscored.size() == 1);
  CHECK(s->unscored[0].find("(8 ranks): no group of the job's kinds") != std::string::npos);
  CHECK(s->notes.empty());
  CHECK(exposed_s(t, &s->traffic) == doctest::Approx(exposed_s(t, nullptr)).epsilon(0.01));
  // Larger buckets cost more.
  test::JobLogOptions big;
  big.dp_bytes_scale = 4;
  Result<ScoredTraffic> b = scored_traffic(t.observed(big), t.c, t.job, t.layout, t.model);
  REQUIRE(b.ok());
  CHECK(exposed_s(t, &b->traffic) > exposed_s(t, nullptr) * 1.01);
}

TEST_CASE("scored_traffic: a call of 0 bytes moves nothing and is left out") {
  // NCCL returns at once from a collective of count 0; scoring one failed ("the size must be >
  // 0 bytes"), found by fuzz_traffic_json.
  const Tiny t;
  ObservedTraffic o = t.observed();
  for (ObservedComm& comm : o.comms) comm.per_step.push_back({"ReduceScatter", 0, 1});
  Result<ScoredTraffic> s = scored_traffic(o, t.c, t.job, t.layout, t.model);
  REQUIRE_MESSAGE(s.ok(), s.error());
  for (const TrafficItem& it : s->traffic.items) CHECK(it.bytes > 0);
  CHECK(exposed_s(t, &s->traffic) == doctest::Approx(exposed_s(t, &scored_traffic(t.observed(), t.c, t.job, t.layout, t.model)->traffic)));
}

TEST_CASE("scored_traffic: a log from other GPUs than the layout's") {
  const Tiny t;
  const ObservedTraffic o = t.observed();
  // The same job on the second host of two: the log's GPUs have no rank.
  const Cluster two = test::load_cluster("dgx-h100:2");
  Layout second = *layout_default(two, 16);
  second.gpu_of_rank.erase(second.gpu_of_rank.begin(), second.gpu_of_rank.begin() + 8);
  Result<ScoredTraffic> s = scored_traffic(o, two, t.job, second, t.model);
  REQUIRE(s.ok());
  CHECK(s->matched.empty());
  CHECK(s->unscored.front().find("h001 GPU 0 has no rank in the layout") != std::string::npos);
  // A host the cluster lacks is an error.
  ObservedTraffic elsewhere = o;
  elsewhere.comms[0].members[0].host = "gpu-z9";
  Result<ScoredTraffic> e = scored_traffic(elsewhere, t.c, t.job, t.layout, t.model);
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().find("'gpu-z9', which the cluster lacks") != std::string::npos);
}

TEST_CASE("scored_traffic_load: a traffic file scored under the model's compute; none matched names the file") {
  const Tiny t;
  const std::filesystem::path dir = test::temp_dir("scored_traffic_load");
  const std::string path = (dir / "t.json").string();
  std::ofstream(path) << observed_traffic_to_json(t.observed()).dump();
  Result<ScoredTraffic> s = scored_traffic_load(path, t.c, t.job, t.layout);
  REQUIRE_MESSAGE(s.ok(), s.error());
  Result<ScoredTraffic> direct = scored_traffic(t.observed(), t.c, t.job, t.layout, t.model);
  REQUIRE(direct.ok());
  CHECK(s->matched == direct->matched);
  CHECK(exposed_s(t, &s->traffic) == doctest::Approx(exposed_s(t, &direct->traffic)));

  const Cluster two = test::load_cluster("dgx-h100:2");
  Layout second = *layout_default(two, 16);
  second.gpu_of_rank.erase(second.gpu_of_rank.begin(), second.gpu_of_rank.begin() + 8);
  Result<ScoredTraffic> none = scored_traffic_load(path, two, t.job, second);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().rfind(path + ": no communicator of the log is a group of the job in this layout", 0) == 0);
}

TEST_CASE("traffic_rows_json: one object per row, its verdict spelt out") {
  const Tiny t;
  Result<std::vector<TrafficRow>> rows = traffic_beside_model(t.observed(), t.job, t.model, 1.5);
  REQUIRE(rows.ok());
  const nlohmann::json j = traffic_rows_json(*rows);
  REQUIRE(j.size() == rows->size());
  for (size_t i = 0; i < rows->size(); ++i) {
    CHECK(j[i]["group_size"] == (*rows)[i].group_size);
    CHECK(j[i]["verdict"] == std::string(to_string((*rows)[i].verdict)));
    CHECK(j[i]["model_bytes_per_step"].get<double>() == doctest::Approx((*rows)[i].model_bytes));
  }
}

// The layouts offered when the hosts do not hold a job as given: legal for the model (each one a
// valid job file), on no more GPUs than there are, within memory, fastest first, each figure the
// score of that job on the hosts it names.
#include "planner/alternatives.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "planner/alternatives_text.h"
#include "planner/gpu_compute.h"
#include "tests/support.h"

namespace topoplan {
namespace {

Job load(const std::string& name) {
  Result<Job> j = job_load((test::data_dir() / "jobs" / (name + ".json")).string());
  REQUIRE_MESSAGE(j.ok(), (j ? "" : j.error()));
  return *j;
}

// Every entry: a valid job with the same model and batches, on at most the GPUs there are, within
// memory, and its step the score of that job host-major on the hosts it names.
void check_list(const Cluster& c, const Router& r, const Job& job, const Alternatives& list) {
  REQUIRE(!list.ranked.empty());
  for (size_t i = 0; i < list.ranked.size(); ++i) {
    const Alternative& a = list.ranked[i];
    CAPTURE(i);
    if (i > 0) CHECK(a.step_s >= list.ranked[i - 1].step_s);
    CHECK(job_ranks(a.job) <= list.gpus_available);
    CHECK(a.job.training.global_batch == job.training.global_batch);
    CHECK(a.job.training.micro_batch == job.training.micro_batch);
    CHECK(a.job.model.layers == job.model.layers);
    CHECK(a.job.parallel.order == job.parallel.order);
    const Result<Job> again = job_from_json(job_to_json(a.job), "again");
    CHECK_MESSAGE(again.ok(), (again ? "" : again.error()));
    CHECK(memory_estimate(a.job, *gpu_compute(c.device(c.gpus().front()).model, a.job)).fits());
    Layout layout;
    for (int h : a.hosts)
      for (VertexId g : c.hosts()[static_cast<size_t>(h)].gpus)
        if (layout.world_size() < job_ranks(a.job)) layout.gpu_of_rank.push_back(g);
    const Result<JobScore> s = score_job(c, r, a.job, layout);
    REQUIRE(s.ok());
    CHECK(a.step_s == doctest::Approx(s->step_s));
    CHECK(a.exposed_s == doctest::Approx(s->exposed_comm_s));
  }
}

}  // namespace

TEST_CASE("alternatives: llama3-70b's 128 GPUs on 15 hosts") {
  const Cluster c = test::load_cluster("dgx-h100:16");
  const Router r(c);
  const Job job = load("llama3-70b");
  AlternativesRequest req;
  for (int h = 0; h < 15; ++h) req.free.push_back(h);
  const Result<Alternatives> list = job_alternatives(c, r, job, req);
  REQUIRE_MESSAGE(list.ok(), (list ? "" : list.error()));
  CHECK(list->gpus_available == 120);
  CHECK(list->ranked.size() <= req.limit);
  CHECK(list->legal > static_cast<int>(list->ranked.size()));
  check_list(c, r, job, *list);
  // 128 GPUs are not there: the job's own sizes cannot be among them; a global batch of 128 over
  // a micro-batch of 1 takes dp of a power of two, so at most 64 GPUs at tp 8 pp 4 or 8.
  for (const Alternative& a : list->ranked) CHECK_FALSE(a.is_job);
  for (const Alternative& a : list->ranked) CHECK((a.job.parallel.dp & (a.job.parallel.dp - 1)) == 0);

  const std::string text = alternatives_text(job, *list, "the 15 hosts have 120 GPUs up");
  CHECK(text.rfind("the 15 hosts have 120 GPUs up\nlayouts of llama3-70b on at most 120 GPUs", 0) == 0);
  const nlohmann::json j = alternatives_json(c, job, *list);
  CHECK(j["gpus_available"] == 120);
  REQUIRE(j["ranked"].size() == list->ranked.size());
  CHECK(j["ranked"][0]["step_s"].get<double>() == doctest::Approx(list->ranked[0].step_s));
  CHECK(j["ranked"][0]["hosts"][0].get<std::string>().starts_with("h"));
}

TEST_CASE("alternatives: a job that fits keeps its own sizes in the list") {
  const Cluster c = test::load_cluster("dgx-h100:16");
  const Router r(c);
  const Job job = load("llama3-70b");
  AlternativesRequest req;
  req.limit = 3;
  const Result<Alternatives> list = job_alternatives(c, r, job, req);
  REQUIRE(list.ok());
  CHECK(list->ranked.size() == 3);
  CHECK(std::count_if(list->ranked.begin(), list->ranked.end(), [](const Alternative& a) { return a.is_job; }) == 1);
  check_list(c, r, job, *list);
}

TEST_CASE("alternatives: MoE sizes divide the experts; nothing fits, an error") {
  const Cluster c = test::load_cluster("dgx-h100:4");
  const Router r(c);
  const Job job = load("mixtral-8x7b");
  const Result<Alternatives> list = job_alternatives(c, r, job, {});
  REQUIRE_MESSAGE(list.ok(), (list ? "" : list.error()));
  for (const Alternative& a : list->ranked) CHECK(job.model.moe.experts % a.job.parallel.ep == 0);
  check_list(c, r, job, *list);

  const Cluster one = test::load_cluster("dgx-h100:1");
  const Result<Alternatives> none = job_alternatives(one, Router(one), load("llama3-405b"), {});
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().starts_with("no layout of llama3-405b fits 8 GPUs: "));
}

}  // namespace topoplan

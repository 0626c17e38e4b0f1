// The Kubernetes manifests: golden files, read back as the cluster would run them
// (k8s_read_back.h), Kueue's level, and what they cannot run.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <set>

#include "planner/emit/emit.h"
#include "planner/plan.h"
#include "tests/planner/emit/cases.h"
#include "tests/planner/emit/k8s_read_back.h"
#include "tests/support.h"
#include "topology/formats/kubernetes.h"

namespace topoplan {

TEST_CASE("emit jobset, pytorchjob, mpijob: golden files") {
  test::check_emit_golden("jobset", {"dgx-h100-interleaved"});
  test::check_emit_golden("pytorchjob", {"dgx-h100-interleaved"});
  test::check_emit_golden("mpijob");
}

TEST_CASE("emit jobset, pytorchjob, mpijob: every rank starts on its planned GPU, whichever pod lands where") {
  for (const char* name : {"dgx-h100-permuted", "pcie-l40s-permuted", "explicit-graph"}) {
    INFO(name);
    auto c = test::emit_case(name);
    test::check_k8s_runs_as_planned(test::emit_ok("jobset", *c)[0].text, c->input());
    test::check_k8s_runs_as_planned(test::emit_ok("pytorchjob", *c)[0].text, c->input());
    test::check_k8s_runs_as_planned(test::emit_ok("mpijob", *c)[0].text, c->input());
  }
  // mpirun places every rank on its own: ranks may interleave across hosts.
  auto interleaved = test::emit_case("dgx-h100-interleaved");
  test::check_k8s_runs_as_planned(test::emit_ok("mpijob", *interleaved)[0].text, interleaved->input());
}

TEST_CASE("emit jobset: a plan over pods asks Kueue for the nearest level holding every host") {
  Cluster c = test::load_cluster((test::data_dir() / "clusters" / "pods-16-h100.json").string());
  Router r(c);
  Job job = test::small_job();
  job.parallel.tp = job.parallel.expert_tp = 8;
  job.parallel.dp = 2;
  const std::vector<std::string> keys = k8s_level_keys(c, K8sLabels::topograph);
  const auto labels = k8s_host_labels(c, K8sLabels::topograph);
  for (const std::vector<int>& free : {std::vector<int>{0, 1, 2, 3}, std::vector<int>{0, 4, 8, 12}}) {
    PlanRequest req;
    req.free = free;
    Result<Plan> plan = plan_job(c, r, job, req);
    REQUIRE_MESSAGE(plan.ok(), (plan ? "" : plan.error()));
    const EmitInput in{c, r, plan->job, plan->layout, test::EmitCase::launch()};
    Result<std::vector<EmittedFile>> files = emit("jobset", in);
    REQUIRE_MESSAGE(files.ok(), (files ? "" : files.error()));
    test::check_k8s_runs_as_planned((*files)[0].text, in);
    // The nearest key whose one value every host has.
    std::string want;
    for (const std::string& key : keys) {
      std::set<std::string> values;
      for (int h : free)
        for (const auto& kv : labels[static_cast<size_t>(h)])
          if (kv.first == key) values.insert(kv.second);
      if (values.size() == 1) {
        want = key;
        break;
      }
    }
    INFO("hosts " << free.front() << "..., level " << want);
    CHECK(!want.empty());
    const YAML::Node doc = YAML::Load((*files)[0].text);
    CHECK(doc["metadata"]["labels"]["kueue.x-k8s.io/queue-name"].as<std::string>() == "team-a");
    for (const test::K8sPodSet& set : test::k8s_pod_sets(doc)) {
      CHECK(set.pod["metadata"]["annotations"]["kueue.x-k8s.io/podset-required-topology"].as<std::string>() == want);
      CHECK(set.pod["metadata"]["annotations"]["kueue.x-k8s.io/podset-group-name"].as<std::string>() == "small");
    }
  }
}

TEST_CASE("emit jobset, pytorchjob: what they cannot run is an error that says why") {
  auto c = test::emit_case("dgx-h100-interleaved");
  Result<std::vector<EmittedFile>> r = emit("jobset", c->input());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().starts_with("jobset (torchrun in each pod) cannot express this layout: rank 1 is on h002"));
  auto ok = test::emit_case("dgx-h100-default");
  EmitInput no_image = ok->input();
  no_image.launch.image.clear();
  Result<std::vector<EmittedFile>> none = emit("pytorchjob", no_image);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().starts_with("pytorchjob needs the container image (--image) and the command every rank runs"));
}

}  // namespace topoplan

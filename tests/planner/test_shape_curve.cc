// What each allocation shape costs: every entry is the planner on its hosts; on a fabric 7:1 above
// its pods, one host away from the rest costs more than an even split; on two GB200 racks an even
// 8:8 beats 15:1, whose lone tray leaves a TP group off NVLink.
#include "planner/shape_curve.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <nlohmann/json.hpp>

#include "planner/shape_curve_text.h"
#include "topology/formats/kubernetes.h"
#include "tests/support.h"

namespace topoplan {
namespace {

const ShapeEntry& entry(const ShapeCurve& curve, const std::string& name) {
  for (const ShapeEntry& e : curve.entries)
    if (shape_name(e) == name) return e;
  FAIL("no shape " << name);
  return curve.entries.front();
}

double planned_step(const Cluster& c, const Router& r, const Job& job, const std::vector<int>& hosts) {
  PlanRequest req;
  req.free = hosts;
  return plan_job(c, r, job, req)->score.step_s;
}

}  // namespace

TEST_CASE("shape curve: pods 7:1 oversubscribed, llama3-70b on 16 hosts") {
  const auto dir = test::temp_dir("shape-curve");
  std::ofstream(dir / "pods.json") << R"({"name": "pods-64", "node": "dgx-h100", "nodes": 64,
    "fabric": {"kind": "rail", "nodes_per_su": 8, "nodes_per_pod": 16, "pod_oversubscription": 7}})";
  const Cluster c = test::load_cluster((dir / "pods.json").string());
  const Router r(c);
  const Job job = *job_load((test::data_dir() / "jobs" / "llama3-70b.json").string());
  const Result<ShapeCurve> curve = shape_curve(c, r, job, {});
  REQUIRE_MESSAGE(curve.ok(), (curve ? "" : curve.error()));
  CHECK(curve->hosts_needed == 16);
  const ShapeEntry& pod = entry(*curve, "one pod");
  CHECK(pod.hosts.size() == 16);
  CHECK(pod.step_s == doctest::Approx(planned_step(c, r, job, pod.hosts)));
  const ShapeEntry& four = entry(*curve, "4 pods, 4:4:4:4");
  CHECK(four.step_s == doctest::Approx(planned_step(c, r, job, four.hosts)));
  // Each part from its own pod.
  std::set<int> pods;
  const Locality& loc = locality_of(c);
  for (int h : four.hosts) pods.insert(loc.pod[static_cast<size_t>(h)]);
  CHECK(pods.size() == 4);
  const ShapeEntry& even = entry(*curve, "2 pods, 8:8");
  const ShapeEntry& lone = entry(*curve, "2 pods, 15:1");
  MESSAGE("2 pods: 8:8 " << even.step_s << " s, 15:1 " << lone.step_s << " s");
  CHECK(lone.step_s > even.step_s);
  for (const ShapeEntry& e : curve->entries) CHECK(e.step_s >= curve->entries[curve->best].step_s);

  // The advice: inside one unit of the required level every shape is within the tolerance, and
  // some shape beyond it is not; the levels have labels Kueue can name.
  const ShapeAdvice advice = shape_advice(c, *curve);
  const double best = curve->entries[curve->best].step_s;
  REQUIRE(advice.required_any);
  bool beyond = false;
  for (const ShapeEntry& e : curve->entries) {
    const bool inside = std::all_of(e.hosts.begin(), e.hosts.end(), [&](int h) {
      return loc.unit(h, advice.required) == loc.unit(e.hosts.front(), advice.required);
    });
    if (inside) CHECK(e.step_s <= best * (1 + kShapeTolerance));
    beyond = beyond || (!inside && e.step_s > best * (1 + kShapeTolerance));
  }
  CHECK(beyond);
  CHECK(advice.kueue_required.starts_with("network.topology.nvidia.com/"));
  // Its tier among the labels, nearest the host 1: the leaf's block label is 1 on DGX hosts.
  const std::vector<std::string> tiers = k8s_level_keys(c, K8sLabels::topograph);
  REQUIRE(advice.volcano_tier >= 1);
  CHECK(tiers[static_cast<size_t>(advice.volcano_tier - 1)] == advice.kueue_required);
  CHECK(tiers.front() == "network.topology.nvidia.com/block");
  const std::string text = shape_curve_text(c, job, *curve);
  CHECK(text.find("\nto ask for: require one " + std::string(to_string(advice.required))) != std::string::npos);
  CHECK(text.find("  2 pods, 15:1 ") != std::string::npos);
  const nlohmann::json j = shape_curve_json(c, job, *curve);
  CHECK(j["shapes"].size() == curve->entries.size());
  CHECK(j["shapes"][curve->best]["over_best"].get<double>() == 0);
}

TEST_CASE("shape curve: two GB200 racks, 8:8 beats 15:1") {
  const Cluster c = test::load_cluster((test::data_dir() / "clusters" / "nvl72-2racks.json").string());
  const Router r(c);
  const Job job = *job_from_json(nlohmann::json::parse(R"({"name": "tp8-64",
      "model": {"layers": 32, "hidden": 4096, "ffn_hidden": 14336, "heads": 32, "kv_heads": 8, "vocab": 128256,
                "swiglu": true},
      "training": {"seq_length": 8192, "micro_batch": 1, "global_batch": 64},
      "parallel": {"tp": 8, "pp": 2, "dp": 4, "sequence_parallel": true, "zero_stage": 1}})"),
                                 "tp8-64");
  const Result<ShapeCurve> curve = shape_curve(c, r, job, {});
  REQUIRE_MESSAGE(curve.ok(), (curve ? "" : curve.error()));
  const ShapeEntry& even = entry(*curve, "2 NVLink domains, 8:8");
  const ShapeEntry& lone = entry(*curve, "2 NVLink domains, 15:1");
  MESSAGE("two racks: 8:8 " << even.step_s << " s, 15:1 " << lone.step_s << " s");
  CHECK(even.step_s < lone.step_s);
  CHECK(entry(*curve, "one NVLink domain").step_s <= even.step_s);
  // One rack is what to require: Slurm's block plugin with a segment of every host, Kueue by the
  // accelerator label topo export sets.
  const ShapeAdvice advice = shape_advice(c, *curve);
  CHECK(advice.required_any);
  CHECK(advice.required == Level::domain);
  CHECK(advice.slurm == "--segment=16");
  CHECK(advice.kueue_required == "network.topology.nvidia.com/accelerator");
  CHECK(advice.volcano_tier == 1);  // the domain label is the nearest the host
  CHECK(shape_curve_json(c, job, *curve)["advice"]["required"] == "NVLink domain");
}

TEST_CASE("shape curve: hosts that cannot hold the job") {
  const Cluster c = test::load_cluster("dgx-h100:4");
  const Router r(c);
  const Job job = *job_load((test::data_dir() / "jobs" / "llama3-70b.json").string());
  CHECK(shape_curve(c, r, job, {}).error() == "the job needs 16 hosts of 8 GPUs; 4 whole hosts free");
}

TEST_CASE("shape curve: a split two rules give (3:1 is all but one of 4 hosts) is listed once") {
  const auto dir = test::temp_dir("shape-curve-4");
  std::ofstream(dir / "c.json") << R"({"name": "two-groups", "node": "dgx-h100", "nodes": 8,
    "fabric": {"kind": "rail", "nodes_per_su": 4}})";
  const Cluster c = test::load_cluster((dir / "c.json").string());
  const Router r(c);
  Job job = *job_load((test::data_dir() / "jobs" / "llama3-70b.json").string());
  job.parallel.pp = 1;
  job.parallel.virtual_pipeline_stages = 1;
  job.parallel.dp = 4;  // 4 hosts
  job.training.global_batch = 16;
  const Result<ShapeCurve> curve = shape_curve(c, r, job, {});
  REQUIRE_MESSAGE(curve.ok(), (curve ? "" : curve.error()));
  std::set<std::string> names;
  for (const ShapeEntry& e : curve->entries) CHECK_MESSAGE(names.insert(shape_name(e)).second, shape_name(e));
  CHECK(names.count("2 leaf groups, 3:1") == 1);
}

}  // namespace topoplan

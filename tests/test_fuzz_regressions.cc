// Inputs that once crashed, hung or broke a property of a fuzz target (fuzz/, scripts/fuzz), kept
// in tests/fuzz/<target>/ and replayed here through the same parser: each must now give a value
// or an error that says what is wrong, without an exception, and promptly.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>

#include "base/hostlist.h"
#include "base/index_list.h"
#include "base/json_fields.h"
#include "base/units.h"
#include "cost/calibration.h"
#include "fuzz/slurm_build.h"
#include "planner/job.h"
#include "planner/layout.h"
#include "planner/rank_groups.h"
#include "planner/slurm_jobs.h"
#include "tests/support.h"
#include "topology/fabric_plan.h"
#include "topology/formats/hwloc.h"
#include "topology/formats/json.h"
#include "topology/formats/nccl_xml.h"
#include "topology/formats/slurm_topology.h"
#include "topology/formats/slurm_yaml.h"
#include "topology/load.h"
#include "topology/routing.h"
#include "validate/compare.h"
#include "validate/plan_file.h"

using namespace topoplan;

namespace {

// The error of a Result, "" when it holds a value.
template <typename R>
std::string error_of(const R& r) {
  return r.ok() ? "" : r.error();
}

// As fuzz/node_import.h: a server file's facts inferred with dgx-h100 filling the gaps, two nodes built.
std::string node_file_error(const Result<NodeFacts>& facts) {
  if (!facts) return facts.error();
  const NodeType base = *node_type_named("dgx-h100");
  NodeHints hints;
  hints.base = &base;
  Result<NodeTypeInference> type = node_type_infer(*facts, hints);
  if (!type) return type.error();
  ClusterSpec spec{"f", type->type, 2, fabric_default(type->type), {}, {}};
  return error_of(cluster_build(spec));
}

// A JSON document's loader: the parse error, or the loader's.
template <typename F>
std::string json_then(const std::string& text, F load) {
  Result<nlohmann::json> doc = json_parse_text(text, "fuzz.json");
  return doc ? error_of(load(*doc)) : doc.error();
}

// A Slurm topology's build error; where it builds, a broken round trip (fuzz/slurm_build.h) fails
// the test here.
template <typename Write, typename Parse>
std::string slurm_build_error(const SlurmTopology& topo, Write write, Parse parse) {
  const std::string broken = fuzz::slurm_round_trip_error(topo, write, parse);
  CHECK_MESSAGE(broken.empty(), broken);
  return error_of(slurm_topology_build(topo, *node_type_named("dgx-h100"), "f", 1, "f"));
}

// Each target's parser, as the fuzz target calls it (the first bytes of layout and rank_order
// inputs are parameters, as there).
const std::map<std::string, std::function<std::string(const std::string&)>>& parsers() {
  static const std::map<std::string, std::function<std::string(const std::string&)>> table = {
      {"cluster_json",
       [](const std::string& t) {
         // As fuzz/cluster_json: load, then route the first GPU to the last with PXN.
         return json_then(t, [](auto& j) {
           Result<Cluster> c = cluster_from_json(j, "f");
           if (!c) return Result<Route>(Error{c.error()});
           Router router(*c);
           return router.route(c->gpus().front(), c->gpus().back(), {NicPolicy::pxn, true});
         });
       }},
      {"recipe",
       [](const std::string& t) {
         return json_then(t, [](auto& j) {
           Result<ClusterSpec> s = recipe_from_json(j, "f");
           return s ? fabric_plan(*s) : Result<FabricPlan>(Error{s.error()});
         });
       }},
      {"job", [](const std::string& t) { return json_then(t, [](auto& j) { return job_from_json(j, "f"); }); }},
      {"calibration",
       [](const std::string& t) { return json_then(t, [](auto& j) { return calibration_from_json(j, "f"); }); }},
      {"layout",
       [](const std::string& t) {
         static const Cluster c = test::load_cluster("dgx-h100:2");
         return t.empty() ? "" : error_of(layout_parse(t.substr(1), "f", c, static_cast<unsigned char>(t[0]) % 16 + 1));
       }},
      {"units",
       [](const std::string& t) {
         return error_of(parse_bytes(t)) + error_of(parse_rate_GBps(t)) + error_of(parse_duration_s(t));
       }},
      {"hostlist", [](const std::string& t) { return error_of(hostlist_expand(t)); }},
      {"measured", [](const std::string& t) { return error_of(measured_parse(t, "f")); }},
      {"validate_plan", [](const std::string& t) { return error_of(validate_plan_parse(t, "f")); }},
      {"preset_spec", [](const std::string& t) { return error_of(preset_spec_parse(t)); }},
      {"index_list", [](const std::string& t) { return error_of(parse_index_list(t, 4096)); }},
      {"slurm_topology",
       [](const std::string& t) {
         // As fuzz/slurm_topology: parse, build with dgx-h100 hosts, and the round trip holds.
         Result<SlurmTopology> topo = slurm_topology_parse(t, "f");
         if (!topo) return topo.error();
         return slurm_build_error(*topo, slurm_tree_write, fuzz::slurm_conf);
       }},
      {"slurm_yaml",
       [](const std::string& t) {
         Result<SlurmYaml> yaml = slurm_yaml_parse(t, "f", "");
         if (!yaml) return yaml.error();
         return slurm_build_error(yaml->topology, slurm_yaml_write, fuzz::slurm_yaml_tree);
       }},
      {"nccl_xml", [](const std::string& t) { return node_file_error(nccl_topo_xml_parse(t, "f")); }},
      {"slurm_jobs", [](const std::string& t) { return error_of(slurm_jobs_parse(t, "f")); }},
      {"hwloc", [](const std::string& t) { return node_file_error(hwloc_xml_facts(t, "f")); }},
      {"rank_order",
       [](const std::string& t) {
         if (t.size() < 6) return std::string();
         auto b = [&t](size_t i) { return static_cast<unsigned char>(t[i]) % 8; };
         ParallelSizes s{b(0) + 1, b(1) + 1, b(2) + 1, b(3) + 1, b(4) + 1, b(5)};
         return error_of(RankGroups::make(s, t.substr(6)));
       }},
  };
  return table;
}

}  // namespace

TEST_CASE("fuzz regressions: every kept input gives a value or a clean error, promptly") {
  const std::filesystem::path dir = test::source_dir() / "tests" / "fuzz";
  int replayed = 0;
  for (const auto& target : std::filesystem::directory_iterator(dir)) {
    CAPTURE(target.path().filename().string());
    auto parser = parsers().find(target.path().filename().string());
    REQUIRE_MESSAGE(parser != parsers().end(), "no parser for this target: add it to parsers()");
    for (const auto& input : std::filesystem::directory_iterator(target.path())) {
      CAPTURE(input.path().filename().string());
      const std::string text = test::read_file(input.path());
      auto t0 = std::chrono::steady_clock::now();
      std::string error;
      CHECK_NOTHROW(error = parser->second(text));
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      CHECK_MESSAGE(s < 5, s);
      // Each input's expectation is in its name: "error-..." must be refused, "ok-..." accepted.
      const std::string name = input.path().filename().string();
      if (name.starts_with("error-")) CHECK_MESSAGE(!error.empty(), "accepted");
      if (name.starts_with("ok-")) CHECK_MESSAGE(error.empty(), error);
      ++replayed;
    }
  }
  MESSAGE(replayed << " fuzz inputs replayed");
  CHECK(replayed > 0);
}

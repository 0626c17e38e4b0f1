#include "planner/layout.h"

#include <doctest/doctest.h>

#include <fstream>

#include "tests/support.h"

namespace topoplan {
namespace {

std::string error_of(const std::string& text, int world = 4) {
  Cluster c = test::load_cluster("dgx-h100:2");
  Result<Layout> l = layout_parse(text, "plan.txt", c, world);
  REQUIRE_FALSE(l.ok());
  return l.error();
}

}  // namespace

TEST_CASE("layout: default is host-major, and a job larger than the cluster is an error") {
  Cluster c = test::load_cluster("dgx-h100:2");
  Layout l = *layout_default(c, 12);
  CHECK(c.device(l.gpu_of_rank[9]).name == "h002/gpu1");
  CHECK(layout_default(c, 17).error() == "the job needs 17 GPUs, the cluster has 16");
}

TEST_CASE("layout: a SLURM host list gives each host's GPUs in turn") {
  Cluster c = test::load_cluster("dgx-h100:2");
  Layout l = *layout_parse("h002\nh001  # first rank on h001\n\nh002\nh001\n", "hosts", c, 4);
  CHECK(c.device(l.gpu_of_rank[0]).name == "h002/gpu0");
  CHECK(c.device(l.gpu_of_rank[1]).name == "h001/gpu0");
  CHECK(c.device(l.gpu_of_rank[2]).name == "h002/gpu1");
  CHECK(c.device(l.gpu_of_rank[3]).name == "h001/gpu1");
}

TEST_CASE("layout: JSON by rank, host and GPU, or by GPU name") {
  Cluster c = test::load_cluster("dgx-h100:2");
  Layout l = *layout_parse(R"({"ranks": [{"rank": 1, "host": "h001", "gpu": 7}, {"rank": 0, "host": "h002", "gpu": 0}]})",
                           "plan.json", c, 2);
  CHECK(c.device(l.gpu_of_rank[0]).name == "h002/gpu0");
  CHECK(c.device(l.gpu_of_rank[1]).name == "h001/gpu7");
  Layout n = *layout_parse(R"(["h001/gpu3", "h002/gpu3"])", "plan.json", c, 2);
  CHECK(c.device(n.gpu_of_rank[1]).name == "h002/gpu3");
}

TEST_CASE("layout: malformed layouts name the line or field") {
  CHECK(error_of("h001\nh0002\n") == "plan.txt:2: no host 'h0002', did you mean 'h002'?");
  CHECK(error_of("h001\nh001 h002\n") == "plan.txt:2: expected one host name per line, got 'h001 h002'");
  CHECK(error_of("h001\nh001\n") == "plan.txt: the job has 4 ranks, the layout places 2");
  std::string nine;
  for (int i = 0; i < 9; ++i) nine += "h001\n";
  CHECK(error_of(nine, 9) == "plan.txt:9: h001 is listed more often than it has GPUs (8)");
  CHECK(error_of(R"({"ranks": [{"rank": 0, "host": "h001", "gpu": 8}]})", 1) ==
        "plan.txt: ranks[0].gpu: h001 has 8 GPUs (0-7), got 8");
  CHECK(error_of(R"({"ranks": [{"rank": 0, "host": "h001", "gpu": 1}, {"rank": 0, "host": "h001", "gpu": 2}]})", 2) ==
        "plan.txt: ranks[1].rank: rank 0 is placed twice");
  CHECK(error_of(R"(["h001/gpu1", "h001/gpu1"])", 2) == "plan.txt: ranks[1]: GPU h001/gpu1 already runs rank 0");
  CHECK(error_of(R"(["h001/nic1"])", 1) == "plan.txt: ranks[0]: no GPU 'h001/nic1' (GPUs are named like 'h001/gpu0')");
  CHECK(error_of(R"({"ranks": [{"rank": 0, "hots": "h001", "gpu": 1}]})", 1) ==
        "plan.txt: ranks[0]: unknown key 'hots', did you mean 'host'?");
  CHECK(error_of("{\"ranks\": [,]}", 1).starts_with("plan.txt:1:"));
  Cluster c = test::load_cluster("dgx-h100:2");
  CHECK(layout_load("/nonexistent/plan", c, 1).error().starts_with("/nonexistent/plan: cannot read"));
}

TEST_CASE("layout: a plan file brings its order string and exclusions") {
  Cluster c = test::load_cluster("dgx-h100:2");
  const std::string plan = R"({"format": "topoplan-plan", "order": "tp-cp-ep-pp-dp", "exclude": ["h002/gpu7"],
    "ranks": [{"rank": 0, "host": "h001", "gpu": 0, "nic": "nic0"}, {"rank": 1, "host": "h002", "gpu": 3, "nic": null}],
    "score": {}, "baselines": []})";
  Result<Layout> l = layout_parse(plan, "plan.json", c, 2);
  REQUIRE_MESSAGE(l.ok(), (l ? "" : l.error()));
  CHECK(l->order == "tp-cp-ep-pp-dp");
  CHECK(l->down == std::vector<std::string>{"h002/gpu7"});
  CHECK(c.device(l->gpu_of_rank[1]).name == "h002/gpu3");
  auto error = [&](const std::string& text) {
    Result<Layout> r = layout_parse(text, "plan.json", c, 1);
    REQUIRE_FALSE(r.ok());
    return r.error();
  };
  CHECK(error(R"({"format": "topoplan-plan", "order": "tp", "ranks": ["h001/gpu0"], "extra": 1})") ==
        "plan.json: unknown key 'extra'");
  CHECK(error(R"({"format": "topoplan-plan", "ranks": ["h001/gpu0"]})") == "plan.json: missing key 'order'");
  CHECK(error(R"({"format": "topoplan-plan", "order": "tp", "exclude": [3], "ranks": ["h001/gpu0"]})") ==
        "plan.json: exclude[0]: expected a device or link name, got 3");
  CHECK(error(R"({"format": "topoplan-plans", "ranks": ["h001/gpu0"]})") ==
        "plan.json: format: expected \"topoplan-layout\" or \"topoplan-plan\"");
}

}  // namespace topoplan

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

TEST_CASE("layout: a hostlist expression on a line is one rank per name, in order") {
  Cluster c = test::load_cluster("dgx-h100:2");
  Layout l = *layout_parse("h[001-002]\n# again\nh[001-002],h001\n", "hosts", c, 5);
  std::vector<std::string> names;
  for (VertexId v : l.gpu_of_rank) names.push_back(c.device(v).name);
  CHECK(names == std::vector<std::string>{"h001/gpu0", "h002/gpu0", "h001/gpu1", "h002/gpu1", "h001/gpu2"});
  CHECK(l.line_of_rank == std::vector<int>{1, 1, 3, 3, 3});
}

TEST_CASE("layout: slots=N places N consecutive ranks on each host of the line") {
  Cluster c = test::load_cluster("dgx-h100:2");
  // A host's GPUs are taken in order across lines: the last line's h002 rank gets h002/gpu3.
  Layout l = *layout_parse("h002 slots=3\n  h001\tslots=2  # Open MPI hostfile style\nh002\n", "hosts", c, 6);
  std::vector<std::string> names;
  for (VertexId v : l.gpu_of_rank) names.push_back(c.device(v).name);
  CHECK(names ==
        std::vector<std::string>{"h002/gpu0", "h002/gpu1", "h002/gpu2", "h001/gpu0", "h001/gpu1", "h002/gpu3"});
  CHECK(l.line_of_rank == std::vector<int>{1, 1, 1, 2, 2, 3});
  // With a hostlist expression, each host in turn.
  Cluster l40s = test::load_cluster("pcie-l40s:4");
  Layout all = *layout_parse("h[003-004,001-002] slots=8\n", "hosts", l40s, 32);
  CHECK(l40s.device(all.gpu_of_rank[0]).name == "h003/gpu0");
  CHECK(l40s.device(all.gpu_of_rank[15]).name == "h004/gpu7");
  CHECK(l40s.device(all.gpu_of_rank[16]).name == "h001/gpu0");
  CHECK(all.line_of_rank == std::vector<int>(32, 1));
}

TEST_CASE("layout: JSON by rank, host and GPU, or by GPU name") {
  Cluster c = test::load_cluster("dgx-h100:2");
  Layout l =
      *layout_parse(R"({"ranks": [{"rank": 1, "host": "h001", "gpu": 7}, {"rank": 0, "host": "h002", "gpu": 0}]})",
                    "plan.json", c, 2);
  CHECK(c.device(l.gpu_of_rank[0]).name == "h002/gpu0");
  CHECK(c.device(l.gpu_of_rank[1]).name == "h001/gpu7");
  Layout n = *layout_parse(R"(["h001/gpu3", "h002/gpu3"])", "plan.json", c, 2);
  CHECK(c.device(n.gpu_of_rank[1]).name == "h002/gpu3");
}

TEST_CASE("layout: malformed layouts name the line or field") {
  CHECK(error_of("h001\nh0002\n") == "plan.txt:2: no host 'h0002', did you mean 'h002'?");
  CHECK(error_of("h001\nh001 h002\n") ==
        "plan.txt:2:6: expected slots=N after the hosts, got 'h002' (a line is HOSTS [slots=N]; hosts on one line are "
        "separated by commas)");
  CHECK(error_of("h001\nh001\n") == "plan.txt: the job has 4 ranks, the layout places 2");
  std::string nine;
  for (int i = 0; i < 9; ++i) nine += "h001\n";
  CHECK(error_of(nine, 9) == "plan.txt:9: h001 is listed more often than it has GPUs (8)");
  CHECK(error_of("h002\nh001,h001,h001,h001,h001,h001,h001,h001,h001\n", 10) ==
        "plan.txt:2: h001 is listed more often than it has GPUs (8)");
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

TEST_CASE("layout: malformed hostlist expressions and slots name the line and column") {
  CHECK(error_of("h001\nh[001-002\n") == "plan.txt:2: hostlist: column 2: '[' is never closed");
  CHECK(error_of("  h[002-001] slots=2\n") == "plan.txt:1: hostlist: column 5: range 002-001 runs backwards");
  CHECK(error_of("h[001-003]\n").starts_with("plan.txt:1: no host 'h003'"));
  CHECK(error_of("h001 slots=x\n") == "plan.txt:1:12: slots: expected a positive integer, got 'x'");
  CHECK(error_of("h001 slots=0\n") == "plan.txt:1:12: slots: expected a positive integer, got '0'");
  CHECK(error_of("h001 slots=-2\n") == "plan.txt:1:12: slots: expected a positive integer, got '-2'");
  CHECK(error_of("h001 slots=99999999999\n") == "plan.txt:1:12: slots: expected a positive integer, got '99999999999'");
  CHECK(error_of("h001 slots=2 slots=2\n") == "plan.txt:1:14: slots is given twice");
  CHECK(error_of("h001 slot=4\n") ==
        "plan.txt:1:6: unknown key 'slot', did you mean 'slots'? (a line is HOSTS [slots=N])");
  // max_slots bounds Open MPI's oversubscription and places no rank; a layout never oversubscribes.
  CHECK(error_of("h001 slots=4 max_slots=8\n") == "plan.txt:1:14: unknown key 'max_slots' (a line is HOSTS [slots=N])");
  // More ranks than a host has GPUs, counting what earlier lines placed on it.
  CHECK(error_of("h001 slots=9\n", 9) == "plan.txt:1: slots=9 is more than the 8 GPUs of h001");
  CHECK(error_of("h001 slots=4\nh002\nh001 slots=5\n", 10) ==
        "plan.txt:3: slots=5 is more than the 4 GPUs h001 has left (of 8)");
  // More ranks than the job has: an error at the line, before any name is looked up or placed.
  CHECK(error_of("h[001-002] slots=8\n") == "plan.txt:1: the line places ranks 0-15, the job has 4 ranks (0-3)");
  CHECK(error_of("h001\nh002\nh001\nh002\nh001\n") == "plan.txt:5: the line places rank 4, the job has 4 ranks (0-3)");
  CHECK(error_of("x[1-999999] slots=2000000000\n") ==
        "plan.txt:1: the line places ranks 0-1999997999999999, the job has 4 ranks (0-3)");
  CHECK(error_of("h[1-9999999]\n").starts_with("plan.txt:1: hostlist: 'h[1-9999999]' names more than 1000000 hosts"));
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

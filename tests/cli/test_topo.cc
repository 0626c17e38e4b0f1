#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support.h"

using topoplan::test::run_topoplan;

TEST_CASE("topo show: counts in JSON") {
  auto r = run_topoplan("topo show dgx-h100:4 --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["gpus"] == 32);
  CHECK(j["hosts"] == 4);
  CHECK(j["nics"] == 32);
  CHECK(j["switches"] == 12);
  CHECK(j["sites"] == 1);
  CHECK(j["scaleup_domains"] == 4);
  CHECK(j["rails"] == 8);
  auto text = run_topoplan("topo show dgx-h100:4");
  CHECK(text.out.find("32 GPUs on 4 hosts") != std::string::npos);
}

TEST_CASE("topo show --names: the names plan --exclude takes, one a line; a name from it excludes") {
  auto r = run_topoplan("topo show dgx-h100:2 --names");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.starts_with("# names plan --exclude takes: "));
  for (const char* line :
       {"\nhost h002\n", "\ngpu h001/gpu3\n", "\nnic h002/nic7\n", "\nswitch spine0\n", "\nlink h001/nic0<->leaf0\n"})
    CHECK_MESSAGE(r.out.find(line) != std::string::npos, line);
  auto j = run_topoplan("topo show dgx-h100:2 --names --json");
  REQUIRE(j.exit_code == 0);
  const nlohmann::json names = nlohmann::json::parse(j.out);
  CHECK(names["hosts"].size() == 2);
  CHECK(names["devices"]["gpu"].size() == 16);
  CHECK(names["devices"]["gpu"][0] == "h001/gpu0");
  auto plan =
      run_topoplan("plan --cluster dgx-h100:2 --job " + (topoplan::test::data_dir() / "jobs" / "tiny-8.json").string() +
                   " --exclude 'h001/gpu3,h001/nic0<->leaf0'");
  CHECK_MESSAGE(plan.exit_code == 0, plan.err);
}

TEST_CASE("topo show: one host has no fabric to split, so no bisection") {
  auto r = run_topoplan("topo show dgx-a100:1");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("bisection") == std::string::npos);
  CHECK(r.out.find("  8 GPUs on 1 host, 1 scale-up domain (largest 8 GPUs), 1 site\n") != std::string::npos);
  r = run_topoplan("topo show dgx-a100:1 --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(nlohmann::json::parse(r.out)["bisection_GBps"].is_null());
  r = run_topoplan("topo show dgx-a100:2");
  CHECK(r.out.find("  bisection 200 GB/s\n") != std::string::npos);
}

TEST_CASE("topo show: the CPU model and where the socket link's figure comes from; an unknown model exits 2") {
  auto r = run_topoplan("topo show pcie-l40s:1");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK_MESSAGE(
      r.out.find("  CPUs: 2 x Xeon-6448Y per host (1 host), socket link 22 GB/s: NCCL v2.30.7-1 SRP_QPI_BW for "
                 "Intel Sapphire Rapids\n") != std::string::npos,
      r.out);
  r = run_topoplan("topo show pcie-l40s:1 --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  auto cpus = nlohmann::json::parse(r.out)["cpus"];
  REQUIRE(cpus.size() == 1);
  CHECK(cpus[0]["model"] == "Xeon-6448Y");
  CHECK(cpus[0]["socket_GBps"] == 22);

  // A node type file from before cpu_model set the link: its own rate, said to be so.
  const auto dir = topoplan::test::temp_dir("topo_cpu");
  const std::string old = (dir / "old.json").string();
  std::ofstream(old) << R"({"format": "topoplan-node-type", "version": 1, "name": "old", "gpu_model": "H100-SXM5",
    "gpus": 8, "nics": 8, "nic_rate": "400Gbps", "nvlink_rate": "450GB/s", "pcie_rate": "63GB/s", "cpus": 2,
    "cpu_link_rate": "10GB/s"})";
  r = run_topoplan("topo show " + old + ":2");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK_MESSAGE(r.out.find("  CPUs: 2 x model not given per host (2 hosts), socket link 10 GB/s: cpu_link_rate (no "
                           "cpu_model given)\n") != std::string::npos,
                r.out);

  const std::string bad = (dir / "bad.json").string();
  std::ofstream(bad) << R"({"format": "topoplan-node-type", "version": 1, "name": "bad", "gpu_model": "H100-SXM5",
    "gpus": 8, "nics": 8, "nic_rate": "400Gbps", "pcie_rate": "63GB/s", "cpus": 2, "cpu_model": "Xeon-8408C"})";
  r = run_topoplan("topo show " + bad + ":2");
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(
      r.err.find("cpu_model: unknown CPU model 'Xeon-8408C', did you mean 'Xeon-8480C'?") != std::string::npos, r.err);
}

TEST_CASE("topo path: class and bottleneck between two GPUs") {
  auto r = run_topoplan("topo path dgx-h100:2 h001/gpu0 h002/gpu0 --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["class"] == "NET");
  CHECK(j["bw_GBps"].get<double>() == doctest::Approx(50));
  CHECK(j["src_nic"] == "h001/nic0");
  r = run_topoplan("topo path dgx-h100:2 0 7");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("h001/gpu0 -> h001/gpu7: NVL") != std::string::npos);
}

TEST_CASE("topo export: json and dot") {
  auto r = run_topoplan("topo export dgx-h100:1 --format json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(nlohmann::json::parse(r.out)["devices"].size() > 20);
  r = run_topoplan("topo export dgx-h100:1 --format dot");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("graph") != std::string::npos);
  r = run_topoplan("topo export dgx-h100:1 --format svg");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("unknown format 'svg'") != std::string::npos);
}

TEST_CASE("cli: typos and bad clusters get one clear error and exit 2") {
  auto r = run_topoplan("tpoo show dgx-h100:1");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("did you mean 'topo'") != std::string::npos);
  r = run_topoplan("topo shw dgx-h100:1");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("did you mean 'show'") != std::string::npos);
  r = run_topoplan("topo show dgx-h10:4");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("unknown preset 'dgx-h10', did you mean 'dgx-h100'?") != std::string::npos);
  r = run_topoplan("topo show /nonexistent/cluster.json");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("/nonexistent/cluster.json") != std::string::npos);
  r = run_topoplan("topo path dgx-h100:1 h001/gpu0 h001/gpu9");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("did you mean") != std::string::npos);
  r = run_topoplan("topo path dgx-h100:1 0 99");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("out of range") != std::string::npos);
  r = run_topoplan("--help");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("transfer") != std::string::npos);
}

TEST_CASE("topo path: many equal-cost paths read as one line per stage, --all lists every hop") {
  auto r = run_topoplan("topo path dgx-h100:300 0 2000");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // Paths count ports: 32 spines, each with 32 uplink ports in bundles of 16 to its 2 cores.
  CHECK(r.out.find("16384 equal-cost paths") != std::string::npos);
  CHECK(r.out.find("  leaf0 -> spine[0-31]  NET 50 GB/s, 32 links, share 0.0312 each\n") != std::string::npos);
  CHECK(r.out.find("  spine[0-31] -> core[0-63]  NET 50 GB/s, 1024 links, share 0.001 each\n") != std::string::npos);
  CHECK(r.out.find("--all lists every hop") != std::string::npos);
  size_t lines = std::count(r.out.begin(), r.out.end(), '\n');
  CHECK(lines == 13);
  CHECK(
      r.out.find("\nrouting: adaptive (InfiniBand adaptive routing: each flow's bytes split evenly over the equal-cost "
                 "paths; dgx-h100 preset: a DGX SuperPOD's InfiniBand, adaptive routing on)\n") != std::string::npos);
  auto all = run_topoplan("topo path dgx-h100:300 0 2000 --all");
  REQUIRE(all.exit_code == 0);
  CHECK(std::count(all.out.begin(), all.out.end(), '\n') == 2120);
  CHECK(all.out.find("  leaf0 -> spine17  NET 50 GB/s  share 0.0312\n") != std::string::npos);
  // One path: every hop, as before.
  auto one = run_topoplan("topo path dgx-h100:2 0 7");
  CHECK(one.out.find("stage") == std::string::npos);
}

TEST_CASE("topo show: the default fabric says when it adds pods and a core tier") {
  auto r = run_topoplan("topo show dgx-h100:12500");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("100000 GPUs on 12500 hosts") != std::string::npos);
  CHECK(r.out.find("fabric: rail-optimized, 3 tiers: pods of 128 nodes under a core tier, added because two tiers of "
                   "64-port switches connect at most 256 nodes and the cluster has 12500") != std::string::npos);
  CHECK(r.out.find("tier 3 (core)") != std::string::npos);
  auto one = run_topoplan("topo show dgx-h100:1");
  CHECK(one.out.find("0.03:1") == std::string::npos);
  CHECK(one.out.find("not oversubscribed (uplinks for full scalable units, 3.1% of them used)") != std::string::npos);
}

namespace {

// A recipe of 8 DGX H100 on leaves of their own under 2 spines, with this "routing".
std::filesystem::path routing_recipe(const std::string& routing) {
  auto path = topoplan::test::temp_dir("routing-" + routing) / "cluster.json";
  std::ofstream(path)
      << R"({"node": "dgx-h100", "nodes": 8, "fabric": {"kind": "tor", "nodes_per_su": 1, "nodes_per_pod": 0,
    "spines_per_pod": 2, "routing": ")"
      << routing << "\"}}";
  return path;
}

}  // namespace

TEST_CASE("topo path: under hash routing, each of NCCL's connections to a peer on its own path") {
  const std::string file = routing_recipe("hash").string();
  auto r = run_topoplan("topo path " + file + " h001/gpu0 h002/gpu0");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find(
            "\nrouting: hash (RoCE ECMP: each NCCL connection on one equal-cost path, by a hash of its 5-tuple; set "
            "by the cluster file)\n") != std::string::npos);
  CHECK(r.out.find("the 2 connections NCCL opens to a remote peer, as hash routing places them:\n") !=
        std::string::npos);
  CHECK(r.out.find("  connection 0: h001/nic0 -> leaf0 -> spine") != std::string::npos);
  CHECK(r.out.find("  connection 1: h001/nic0 -> leaf0 -> spine") != std::string::npos);
  // Split evenly over the leaf's 8 uplink ports (4 to each spine), each would take an eighth.
  CHECK(r.out.find("(split evenly, the most on any such link is 0.125)") != std::string::npos);
  // The same inputs, the same bytes.
  CHECK(run_topoplan("topo path " + file + " h001/gpu0 h002/gpu0").out == r.out);
  auto j = nlohmann::json::parse(run_topoplan("topo path " + file + " h001/gpu0 h002/gpu0 --json").out);
  CHECK(j["routing"]["mode"] == "hash");
  CHECK(j["connections"].size() == 2);
  CHECK(j["busiest_switch_link"]["even_share"] == 0.125);
  // Adaptive: no connections, the equal-cost set alone.
  auto fluid = run_topoplan("topo path " + routing_recipe("adaptive").string() + " h001/gpu0 h002/gpu0");
  CHECK(fluid.out.find("connection 0") == std::string::npos);
}

TEST_CASE("topo show and export: the routing, and where it came from") {
  auto j = nlohmann::json::parse(run_topoplan("topo show hgx-h200:1 --json").out);
  CHECK(j["routing"] == nlohmann::json{{"mode", "adaptive"}, {"source", "default"}});
  auto text = run_topoplan("topo show " + routing_recipe("static").string());
  CHECK(text.out.find("  routing: static (InfiniBand forwarding tables") != std::string::npos);
  // A graph keeps what was named and leaves a default unsaid.
  CHECK(nlohmann::json::parse(run_topoplan("topo export dgx-h100:1 --format json").out)["routing"] == "adaptive");
  CHECK(!nlohmann::json::parse(run_topoplan("topo export hgx-h200:1 --format json").out).contains("routing"));
  auto dir = topoplan::test::temp_dir("routing-graph");
  std::ofstream(dir / "g.json")
      << run_topoplan("topo export " + routing_recipe("hash").string() + " --format json").out;
  CHECK(run_topoplan("topo show " + (dir / "g.json").string()).out.find("  routing: hash (") != std::string::npos);
}

TEST_CASE("topo show: a malformed routing names the field and the choices, exit 2") {
  auto r = run_topoplan("topo show " + routing_recipe("hashed").string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("fabric.routing: expected one of \"adaptive\", \"hash\", \"static\", got \"hashed\", did you mean "
                   "'hash'?") != std::string::npos);
  auto dir = topoplan::test::temp_dir("routing-bad-graph");
  auto graph = nlohmann::json::parse(run_topoplan("topo export dgx-h100:1 --format json").out);
  graph["routing"] = 7;
  std::ofstream(dir / "g.json") << graph.dump();
  r = run_topoplan("topo show " + (dir / "g.json").string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("g.json: routing: ") != std::string::npos);
}

// Every row of issue 11's table of bad inputs, through the real binary: a clear message and exit
// 2 (or the right answer), never an abort, a hang or an overflowed number.
#include <doctest/doctest.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support.h"

using topoplan::test::run_topoplan;
using topoplan::test::RunResult;

namespace {

std::string write(const std::string& name, const std::string& text) {
  auto path = topoplan::test::temp_dir("bad-input-" + name) / name;
  std::ofstream(path) << text;
  return path.string();
}

// Exit 2, one "topoplan: error:" line, no internal error, within a few seconds.
std::string refused(const std::string& args) {
  auto t0 = std::chrono::steady_clock::now();
  RunResult r = run_topoplan(args);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CAPTURE(args);
  CHECK_MESSAGE(r.exit_code == 2, r.err);
  CHECK(r.err.starts_with("topoplan: error: "));
  CHECK(r.err.find("internal error") == std::string::npos);
  CHECK(r.out.empty());
  CHECK_MESSAGE(s < 20, s);
  return r.err;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("bad input: a GPU index too large for any integer") {
  CHECK(has(refused("topo path dgx-h100:2 99999999999999999999 0"), "GPU index 99999999999999999999 is out of range"));
}

TEST_CASE("bad input: presets past the GPU limit are refused at once, and a count is required") {
  CHECK(has(refused("topo show dgx-h100:2147483647"), "more than the limit of 1,048,576 GPUs (131,072 nodes)"));
  CHECK(has(refused("topo show dgx-h100"), "give the number of nodes, e.g. 'dgx-h100:32'"));
}

TEST_CASE("bad input: recipes whose fabric would exceed the device limit") {
  std::string su = write("su.json", R"({"node": "dgx-h100", "nodes": 4, "fabric": {"nodes_per_su": 1000000000}})");
  CHECK(has(refused("topo show " + su), "more than the limit of 8,388,608 devices"));
  std::string spines =
      write("spines.json", R"({"node": "dgx-h100", "nodes": 4, "fabric": {"spines_per_pod": 1000000000}})");
  CHECK(has(refused("topo show " + spines), "spines_per_pod 1000000000"));
}

TEST_CASE("bad input: a job larger than any cluster") {
  CHECK(has(refused("groups --tp 32768 --dp 32768"), "more than the limit of 1,048,576 ranks"));
}

TEST_CASE("bad input: values that would overflow a duration") {
  std::string launch = write("launch.json", R"({"launch_us": 1e308})");
  CHECK(has(refused("collective --cluster dgx-h100:1 --op all_reduce --size 1MiB --calibration " + launch),
            "launch_us: expected a number from 0 to 1000000, got 1e+308"));
  std::string eff = write("eff.json", R"({"efficiency": {"NVL": 1e-300}})");
  CHECK(has(refused("collective --cluster dgx-h100:1 --op all_reduce --size 1MiB --calibration " + eff),
            "efficiency.NVL: expected a number from 0.00001 to 1, got 1e-300"));
  RunResult graph = run_topoplan("topo export dgx-h100:1 --format json");
  REQUIRE(graph.exit_code == 0);
  auto doc = nlohmann::json::parse(graph.out);
  doc["links"][0]["bw_GBps"] = 1e-300;
  std::string slow = write("slow.json", doc.dump());
  CHECK(has(refused("topo show " + slow), "links[0].bw_GBps: expected a number from 0.001 to 1000000, got 1e-300"));
  CHECK(has(refused("transfer --size 1TB --rate 1Gbps --deadline 99999999999999999999h"),
            "out of range (durations go up to 1000 years)"));
  CHECK(has(refused("collective --cluster dgx-h100:1 --op all_reduce --sweep 1B:1e30B"), "sizes go up to 1 EB"));
  CHECK(has(refused("transfer --size 1TB --rate 1Gbps --efficiency 1e-300"), "got 1e-300"));
  CHECK(has(refused("transfer --size 100PB --rate 1bps"), "would take more than 1000 years"));
}

TEST_CASE("bad input: a value too large for its field names the maximum") {
  std::string big = write("big.json", R"({"node": "dgx-h100", "nodes": 1000000000000})");
  CHECK(has(refused("topo show " + big), "nodes: expected an integer from 1 to 2147483647, got 1000000000000"));
}

TEST_CASE("bad input: a size past double's range is out of range, not malformed") {
  CHECK(has(refused("transfer --size 1e400B --rate 1Gbps"), "the number is out of range (sizes go up to 1 EB)"));
}

TEST_CASE("bad input: units in another case are accepted where bits and bytes stay apart") {
  RunResult r = run_topoplan("transfer --size 1TB --rate 400gbps");
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out == "1 TB at 400 Gbps: 20 s\n");
  CHECK(has(refused("transfer --size 1TB --rate 400GBps"), "did you mean 'GB/s'?"));
}

TEST_CASE("bad input: --size together with --sweep") {
  CHECK(has(refused("collective --cluster dgx-h100:1 --op all_reduce --size 1MiB --sweep 1B:2B"),
            "give --size SIZE or --sweep MIN:MAX, not both"));
}

TEST_CASE("bad input: --gpus-per-node 0 gets a range a person can read") {
  std::string e = refused("collective --cluster dgx-h100:1 --op all_reduce --size 1MiB --gpus-per-node 0");
  CHECK(has(e, "--gpus-per-node: expected an integer from 1 to 1048576, got '0'"));
  CHECK(e.size() < 200);
}

TEST_CASE("transfer: a deadline alone gives the rate it needs") {
  RunResult r = run_topoplan("transfer --size 100TB --deadline 1h");
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out == "100 TB within 1 h: 222.2 Gbps line rate needed\n");
  r = run_topoplan("transfer --size 100TB --deadline 1h --json");
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["required_gbit_s"].get<double>() == doctest::Approx(222.22).epsilon(1e-3));
  CHECK_FALSE(j.contains("seconds"));
  CHECK(has(refused("transfer --size 100TB"), "--deadline D for the rate needed"));
  CHECK(has(refused("transfer --size 1TB --rate 1Gbps --cluster dgx-h100:2 --from a --to b"), "not both"));
}

TEST_CASE("bad input: --pxn from a host whose NIC is not on the fabric (found by fuzz/cluster_json)") {
  // h1/nic0 belongs to h0, so h1 has no NIC: this read past the device array (exit 139).
  const std::string file = (topoplan::test::source_dir() / "tests/fuzz/cluster_json" /
                            "error-pxn-route-from-a-host-without-a-fabric-nic.json")
                               .string();
  CHECK(has(refused("topo path " + file + " 0 1 --pxn"), "a host has no NIC on the fabric"));
}

#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support.h"

using topoplan::test::run_topoplan;

TEST_CASE("collective: JSON carries the fields the issue names") {
  auto r = run_topoplan("collective --cluster dgx-h100:2 --op all_reduce --size 1GiB --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"op", "bytes", "ranks", "algorithm", "protocol", "time_us", "algbw_GBps", "busbw_GBps"})
    CHECK_MESSAGE(j.contains(key), key);
  for (const char* key : {"link", "class", "bytes", "bw_GBps"}) CHECK_MESSAGE(j["bottleneck"].contains(key), key);
  CHECK(j["ranks"] == 16);
  CHECK(j["bytes"] == 1073741824.0);
  CHECK(j["op"] == "all_reduce");
}

TEST_CASE("collective: a PCIe server's rings cross the socket link at NCCL's figure for its CPU") {
  // pcie-l40s: two Xeon 6448Y (Sapphire Rapids), NCCL's SRP_QPI_BW 22 GB/s (v2.26.2-1 on; it was
  // SKL_QPI_BW 10 before, which bound this all_reduce at 6 GB/s busbw), 0.6 of it effective.
  auto r = run_topoplan("collective --cluster pcie-l40s:1 --op all_reduce --size 16GiB --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["bottleneck"]["link"] == "h001/cpu0 -> h001/cpu1");
  CHECK(j["bottleneck"]["bw_GBps"].get<double>() == doctest::Approx(22 * 0.6));
  CHECK(j["busbw_GBps"].get<double>() == doctest::Approx(13.2).epsilon(0.01));
}

TEST_CASE("collective: --gpus and --gpus-per-node pick the group") {
  auto j = [](const std::string& args) {
    auto r = run_topoplan("collective --cluster dgx-h100:4 --op all_gather --size 1MiB --json " + args);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    return nlohmann::json::parse(r.out);
  };
  CHECK(j("--gpus 0-4,8")["ranks"] == 6);
  CHECK(j("--gpus 0-4,8")["nodes"] == 2);
  CHECK(j("--gpus-per-node 1")["ranks"] == 4);
  CHECK(j("--gpus-per-node 1")["algorithm"] == "pat");  // one GPU per node
  CHECK(j("--gpus-per-node 2 --gpus 0-15")["ranks"] == 4);
}

TEST_CASE("collective: --sweep prints an nccl-tests-like table") {
  auto r = run_topoplan("collective --cluster dgx-a100:1 --op all_reduce --sweep 8B:1KiB");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.starts_with("# topoplan collective all_reduce on dgx-a100:1: 8 ranks, 1 node"));
  int rows = 0;
  for (size_t at = 0; (at = r.out.find('\n', at)) != std::string::npos; ++at)
    if (at + 1 < r.out.size() && r.out[at + 1] != '#') ++rows;
  CHECK(rows == 8);  // 8 .. 1024
}

TEST_CASE("collective: bad input is exit code 2 with a reason") {
  auto err = [](const std::string& args) {
    auto r = run_topoplan("collective " + args);
    CHECK(r.exit_code == 2);
    return r.err;
  };
  CHECK(err("--cluster dgx-h100:1 --op allreduce --size 1MiB").find("did you mean 'all_reduce'") != std::string::npos);
  CHECK(err("--cluster dgx-h100:1 --op all_reduce --size 1MiB --gpus 0-8").find("--gpus: index 8") !=
        std::string::npos);
  CHECK(err("--cluster dgx-h100:1 --op all_reduce --size 1MiB --gpus 3").find("at least 2 GPUs") != std::string::npos);
  CHECK(err("--cluster dgx-h100:1 --op all_reduce --size lots").find("--size:") != std::string::npos);
  CHECK(err("--cluster dgx-h100:1 --op all_reduce").find("give --size SIZE or --sweep MIN:MAX") != std::string::npos);
  CHECK(err("--cluster dgx-h100:1 --op all_reduce --sweep 1GiB:8B").find("--sweep:") != std::string::npos);
  CHECK(err("--cluster dgx-h100:1 --op all_reduce --size 1MiB --algo fastest").find("--algo:") != std::string::npos);
  CHECK(err("--cluster dgx-h100:1 --op all_reduce --size 1MiB --algo nvls_tree").find("more than one node") !=
        std::string::npos);
  CHECK(err("--cluster dgx-h10:1 --op all_reduce --size 1MiB").find("did you mean 'dgx-h100'") != std::string::npos);
}

TEST_CASE("collective: the text names the routing; under hash, the even split's busiest link beside the routed one") {
  auto path = topoplan::test::temp_dir("collective-hash") / "cluster.json";
  std::ofstream(path)
      << R"({"node": "dgx-h100", "nodes": 8, "fabric": {"kind": "tor", "nodes_per_su": 1, "nodes_per_pod": 0,
    "spines_per_pod": 2, "leaf_oversubscription": 4, "routing": "hash"}})";
  const std::string args = "collective --cluster " + path.string() + " --op all_reduce --size 1GiB --why";
  auto r = run_topoplan(args);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(
      r.out.find(
          "\n  routing: hash (RoCE ECMP: each NCCL connection on one equal-cost path, by a hash of its 5-tuple; set by "
          "the cluster file)\n") != std::string::npos);
  CHECK(r.out.find("  split evenly instead (what hash routing gives on average), the busiest link would be ") !=
        std::string::npos);
  CHECK(r.out.find("    the same split evenly (expected)") != std::string::npos);
  CHECK(run_topoplan(args).out == r.out);  // the same inputs, the same bytes
  auto j = nlohmann::json::parse(
      run_topoplan("collective --cluster " + path.string() + " --op all_reduce --size 1GiB --json").out);
  CHECK(j["routing"]["mode"] == "hash");
  CHECK(j["bottleneck"]["bytes"].get<double>() >= j["even_split_bottleneck"]["bytes"].get<double>());
  auto preset = run_topoplan("collective --cluster dgx-a100:1 --op all_reduce --size 1MiB");
  CHECK(preset.out.find("  routing: adaptive (InfiniBand adaptive routing") != std::string::npos);
  CHECK(preset.out.find("split evenly instead") == std::string::npos);
}

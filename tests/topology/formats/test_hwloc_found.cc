#include "topology/formats/hwloc_found.h"

#include <doctest/doctest.h>

#include "tests/support.h"

using namespace topoplan;

TEST_CASE("hwloc found: counts and NIC names in one line and as JSON; without a GPU, no node type") {
  Result<HwlocHost> seed =
      hwloc_xml(test::read_file(test::source_dir() / "fuzz/corpus/hwloc/one-gpu-one-nic.xml"), "seed.xml");
  REQUIRE_MESSAGE(seed, (seed ? "" : seed.error()));
  CHECK(hwloc_found_text(*seed, "seed.xml") == "seed.xml: 1 NUMA node, 2 cores, 1 NVIDIA GPU, 1 RDMA NIC mlx5_0\n");
  const nlohmann::ordered_json j = hwloc_found_json(*seed, "seed.xml");
  CHECK(j["source"] == "seed.xml");
  CHECK(j["found"]["gpus"] == 1);
  CHECK(j["found"]["rdma_nics"] == nlohmann::ordered_json::array({"mlx5_0"}));
  CHECK_FALSE(j.contains("node_type"));

  HwlocHost bare;
  bare.numa_nodes = 2;
  bare.facts.cores = 8;
  bare.cpu_model = "EPYC";
  bare.other_nics = {"eth0"};
  CHECK(hwloc_found_text(bare, "this host") ==
        "this host: 2 NUMA nodes, 8 cores (EPYC), 0 NVIDIA GPUs, 0 RDMA NICs; other network devices, which NCCL's IB "
        "transport does not use: eth0\nno NVIDIA GPU here, so no node type to write (a machine without GPUs, as CI "
        "runs on, has none to describe)\n");
  const nlohmann::ordered_json b = hwloc_found_json(bare, "this host");
  CHECK(b["found"]["other_nics"] == nlohmann::ordered_json::array({"eth0"}));
  CHECK(b.contains("node_type"));
  CHECK(b["node_type"].is_null());
}

// Groups as NCCL sees them, made with node facts kept across groups (CommNodeCache) or afresh: the
// same group either way, whichever groups came before.
#include "cost/comm_group.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "tests/support.h"

namespace topoplan {

TEST_CASE("comm group: node facts kept across groups give the group made afresh") {
  for (const char* spec : {"dgx-h100:4", "gb200-nvl72:2", "pcie-l40s:4", "dgx-a100:2"}) {
    CAPTURE(spec);
    const Cluster c = test::load_cluster(spec);
    const Router r(c);
    CommNodeCache kept(c, r);
    std::mt19937 rng(5);
    std::vector<VertexId> gpus = c.gpus();
    for (int round = 0; round < 40; ++round) {
      // Groups of every size up to the cluster, in shuffled rank order: one GPU per node (DP),
      // whole nodes (TP), and everything between; many repeat a node another group had.
      std::shuffle(gpus.begin(), gpus.end(), rng);
      const size_t size = 1 + rng() % gpus.size();
      std::vector<VertexId> group(gpus.begin(), gpus.begin() + static_cast<long>(size));
      if (round % 3 == 0) std::sort(group.begin(), group.end());
      Result<CommGroup> fresh = comm_group_make(c, r, group);
      REQUIRE_MESSAGE(fresh.ok(), fresh.error());
      for (int twice = 0; twice < 2; ++twice) {
        Result<CommGroup> reused = comm_group_make(c, r, group, &kept);
        REQUIRE(reused.ok());
        CHECK(*reused == *fresh);
      }
    }
  }
}

TEST_CASE("comm group: a group outlives the kept node that a later group of two generations searched again") {
  // A Hopper host and an Ampere host, one GPU each: the Hopper GPU's node is kept at SM90 for the
  // first group, then searched again at SM80 for a group with the Ampere GPU. The first group
  // holds the kept node by address, so the cache must keep the one it replaced.
  Cluster c;
  const int site = c.add_site("site0");
  const VertexId leaf = [&] {
    Device d;
    d.name = "leaf0";
    d.kind = DeviceKind::switch_;
    d.site = site;
    d.tier = 1;
    return *c.add_device(d);
  }();
  std::vector<VertexId> gpus;
  for (const char* model : {"H100-SXM", "A100-SXM"}) {
    const std::string host = model[0] == 'H' ? "h" : "a";
    const int h = c.add_host({host, site, -1, "", {}, {}});
    auto dev = [&](const std::string& name, DeviceKind kind) {
      Device d;
      d.name = host + "/" + name;
      d.kind = kind;
      d.host = h;
      d.site = site;
      d.local_index = 0;
      if (kind == DeviceKind::gpu) d.model = model;
      return *c.add_device(d);
    };
    const VertexId gpu = dev("gpu0", DeviceKind::gpu), pcie = dev("pcie0", DeviceKind::pcie_switch),
                   nic = dev("nic0", DeviceKind::nic);
    REQUIRE(c.add_link(gpu, pcie, LinkKind::PCI, 64, 0.5));
    REQUIRE(c.add_link(pcie, nic, LinkKind::PCI, 64, 0.5));
    REQUIRE(c.add_link(nic, leaf, LinkKind::NET, 50, 1));
    gpus.push_back(gpu);
  }
  REQUIRE(c.finalize());
  const Router r(c);
  CommNodeCache kept(c, r);
  Result<CommGroup> alone = comm_group_make(c, r, {gpus[0]}, &kept);
  REQUIRE_MESSAGE(alone.ok(), alone.error());
  CHECK(alone->compute_capability == 90);
  Result<CommGroup> mixed = comm_group_make(c, r, gpus, &kept);
  REQUIRE_MESSAGE(mixed.ok(), mixed.error());
  CHECK(mixed->compute_capability == 80);
  // Read after the replacement (a use after free under the sanitizers if it was dropped).
  CHECK(*alone == *comm_group_make(c, r, {gpus[0]}));
  CHECK(*mixed == *comm_group_make(c, r, gpus));
}

TEST_CASE("comm group: kept node facts refuse another cluster, and errors stay the group's") {
  const Cluster c = test::load_cluster("dgx-h100:2");
  const Router r(c);
  const Cluster other = test::load_cluster("dgx-h100:2");
  const Router r_other(other);
  CommNodeCache kept(c, r);
  Result<CommGroup> wrong = comm_group_make(other, r_other, other.gpus(), &kept);
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error() == "node facts kept for another cluster or router");
  // A GPU twice, and a device that is no GPU: the same errors with and without kept facts.
  const std::vector<VertexId> twice = {c.gpus()[0], c.gpus()[1], c.gpus()[0]};
  const std::vector<VertexId> nic = {c.gpus()[0], c.hosts()[0].nics[0]};
  for (const std::vector<VertexId>& bad : {twice, nic}) {
    Result<CommGroup> fresh = comm_group_make(c, r, bad), reused = comm_group_make(c, r, bad, &kept);
    REQUIRE_FALSE(fresh.ok());
    REQUIRE_FALSE(reused.ok());
    CHECK(reused.error() == fresh.error());
  }
}

TEST_CASE("comm group: a host built like an earlier one but railed otherwise gets its own node") {
  // Two hosts of one node type, alike but for their NICs' rails: the second's are the first's
  // swapped. A node copied from the first host's would put each GPU on the other rail.
  Cluster c;
  for (const char* name : {"a", "b"}) {
    const int h = c.add_host({name, -1, -1, "box", {}, {}});
    const bool first = std::string(name) == "a";
    const VertexId nvs = test::add_device(c, h, "nvswitch", DeviceKind::nvswitch);
    for (int i = 0; i < 2; ++i) {
      const std::string n = std::to_string(i);
      const VertexId gpu = test::add_device(c, h, "gpu" + n, DeviceKind::gpu, i);
      const VertexId pcie = test::add_device(c, h, "pcie" + n, DeviceKind::pcie_switch, i);
      const VertexId nic = test::add_device(c, h, "nic" + n, DeviceKind::nic, i, first ? i : 1 - i);
      REQUIRE(c.add_link(gpu, nvs, LinkKind::NVL, 450, 0.5));
      REQUIRE(c.add_link(gpu, pcie, LinkKind::PCI, 64, 0.5));
      REQUIRE(c.add_link(pcie, nic, LinkKind::PCI, 64, 0.5));
    }
  }
  test::add_leaf(c, {"a/nic0", "a/nic1", "b/nic0", "b/nic1"});
  REQUIRE(c.finalize());
  const Router r(c);
  REQUIRE(r.host_twin(1));  // b is built like a
  CommNodeCache kept(c, r);
  const VertexId a0 = *c.find("a/gpu0"), a1 = *c.find("a/gpu1"), b0 = *c.find("b/gpu0"), b1 = *c.find("b/gpu1");
  for (const std::vector<VertexId>& group : {std::vector{a0, a1}, std::vector{b0, b1}, std::vector{a0, b0}}) {
    Result<CommGroup> fresh = comm_group_make(c, r, group), reused = comm_group_make(c, r, group, &kept);
    REQUIRE_MESSAGE(fresh.ok(), fresh.error());
    REQUIRE(reused.ok());
    CHECK(*reused == *fresh);
  }
  CHECK(comm_group_make(c, r, {b0, a0}, &kept)->nodes[0].gpu_rails == NodeList<int>{1});
}

}  // namespace topoplan

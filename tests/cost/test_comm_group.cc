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

}  // namespace topoplan

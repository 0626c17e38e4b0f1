#include "cost/transfers.h"

#include <doctest/doctest.h>

#include <numeric>

#include "cost/link_load.h"
#include "tests/support.h"

namespace topoplan {
namespace {

struct Fixture {
  Cluster cluster;
  Router router;
  CommGroup group;
  Fixture(const std::string& spec, std::vector<int> gpus)
      : cluster(test::load_cluster(spec)), router(cluster), group(make(gpus)) {}
  CommGroup make(std::vector<int> gpus) {
    if (gpus.empty()) {
      gpus.resize(cluster.gpus().size());
      std::iota(gpus.begin(), gpus.end(), 0);
    }
    std::vector<VertexId> v;
    for (int i : gpus) v.push_back(cluster.gpus()[static_cast<size_t>(i)]);
    Result<CommGroup> g = comm_group_make(cluster, router, v);
    REQUIRE_MESSAGE(g.ok(), g.error());
    return *g;
  }
  LinkLoad load(CollectiveOp op, NcclAlgo algo, double bytes) {
    LinkLoad l(router, calibration_default());
    Result<std::vector<Transfer>> t = collective_transfers(group, op, algo, bytes, {});
    REQUIRE_MESSAGE(t.ok(), t.error());
    REQUIRE(l.add(*t).ok());
    return l;
  }
  EdgeId edge(const std::string& a, const std::string& b) {
    VertexId va = *cluster.find(a), vb = *cluster.find(b);
    for (EdgeId e : cluster.out_edges(va))
      if (cluster.target(e) == vb) return e;
    FAIL("no link " << a << " -> " << b);
    return 0;
  }
};

double sum_bytes(const std::vector<Transfer>& ts) {
  double s = 0;
  for (const Transfer& t : ts) s += t.bytes;
  return s;
}

}  // namespace

TEST_CASE("transfers: NCCL's double binary tree") {
  // Worked by hand from trees.cc's rule for 8 ranks: 1,3 -> 2; 5,7 -> 6; 2,6 -> 4; 4 -> 0.
  CHECK(nccl_btree_parents(8) == std::vector<int>{-1, 2, 4, 2, 0, 6, 4, 6});
  // Even counts mirror: no rank is an inner node of both trees.
  for (int n : {2, 4, 8, 16, 64}) {
    std::vector<int> t0 = nccl_btree_parents(n), t1 = nccl_dtree_parents(n);
    std::vector<int> inner0(n, 0), inner1(n, 0);
    for (int r = 0; r < n; ++r) {
      if (t0[r] >= 0) inner0[t0[r]] = 1;
      if (t1[r] >= 0) inner1[t1[r]] = 1;
    }
    for (int r = 0; r < n; ++r) CHECK_FALSE((inner0[r] && inner1[r]));
  }
  // Both are trees over every rank for any count: one root, every rank reaches it.
  for (int n : {1, 2, 3, 5, 7, 8, 13, 100}) {
    for (const std::vector<int>& parent : {nccl_btree_parents(n), nccl_dtree_parents(n)}) {
      CHECK(std::count(parent.begin(), parent.end(), -1) == 1);
      for (int r = 0; r < n; ++r) {
        int v = r, steps = 0;
        while (parent[v] >= 0 && steps++ <= n) v = parent[v];
        CHECK(steps <= n);
      }
    }
  }
}

TEST_CASE("transfers: a ring on one NVSwitch node loads every GPU link 2(n-1)/n of the buffer") {
  Fixture f("dgx-h100:1", {});
  const double S = 1e9;
  LinkLoad l = f.load(CollectiveOp::all_reduce, NcclAlgo::ring, S);
  for (int g = 0; g < 8; ++g) {
    std::string gpu = "h001/gpu" + std::to_string(g);
    CHECK(l.bytes(f.edge(gpu, "h001/nvswitch")) == doctest::Approx(2.0 * 7 / 8 * S));
    CHECK(l.bytes(f.edge("h001/nvswitch", gpu)) == doctest::Approx(2.0 * 7 / 8 * S));
  }
  // all_gather moves (n-1)/n per hop.
  LinkLoad ag = f.load(CollectiveOp::all_gather, NcclAlgo::ring, S);
  CHECK(ag.bytes(f.edge("h001/gpu3", "h001/nvswitch")) == doctest::Approx(7.0 / 8 * S));
}

TEST_CASE("transfers: NVLS sends 1 + 1/p of the buffer each way through the switch") {
  Fixture f("dgx-h100:1", {0, 1, 2, 3, 4});
  LinkLoad l = f.load(CollectiveOp::all_reduce, NcclAlgo::nvls, 1000);
  CHECK(l.bytes(f.edge("h001/gpu0", "h001/nvswitch")) == doctest::Approx(1200));
  CHECK(l.bytes(f.edge("h001/nvswitch", "h001/gpu4")) == doctest::Approx(1200));
  CHECK(l.bytes(f.edge("h001/gpu5", "h001/nvswitch")) == 0);
  // all_gather stores 1/p and receives everything: no less time than a ring, as NCCL says.
  LinkLoad ag = f.load(CollectiveOp::all_gather, NcclAlgo::nvls, 1000);
  CHECK(ag.bytes(f.edge("h001/gpu0", "h001/nvswitch")) == doctest::Approx(200));
  CHECK(ag.bytes(f.edge("h001/nvswitch", "h001/gpu0")) == doctest::Approx(1000));
}

TEST_CASE("transfers: multi-node rings stay on their rail, one channel group per NIC") {
  Fixture f("dgx-h100:4", {});
  const double S = 8e9, n = 32;
  LinkLoad l = f.load(CollectiveOp::all_reduce, NcclAlgo::ring, S);
  // Every NIC sends and receives an eighth of the ring's per-hop bytes, and nothing crosses rails.
  for (int h = 1; h <= 4; ++h)
    for (int r = 0; r < 8; ++r) {
      std::string nic = "h00" + std::to_string(h) + "/nic" + std::to_string(r);
      double up = 0;
      for (EdgeId e : f.cluster.out_edges(*f.cluster.find(nic)))
        if (f.cluster.link(e).kind == LinkKind::NET) up += l.bytes(e);
      CHECK(up == doctest::Approx(2 * (n - 1) / n * S / 8));
    }
  for (EdgeId e : l.loaded()) {
    const Device& a = f.cluster.device(f.cluster.source(e));
    const Device& b = f.cluster.device(f.cluster.target(e));
    CHECK_FALSE((a.kind == DeviceKind::switch_ && b.kind == DeviceKind::switch_));  // one SU: leaf per rail
  }
}

TEST_CASE("transfers: DGX A100 rings leave through the NIC's PCIe neighbour, not over one GPU twice") {
  Fixture f("dgx-a100:2", {});
  LinkLoad l = f.load(CollectiveOp::all_reduce, NcclAlgo::ring, 16e9);
  // Two GPUs and two NICs per PCIe switch: each GPU's uplink carries one channel group's exit.
  const double one = l.bytes(f.edge("h001/gpu0", "h001/pcie0"));
  CHECK(one > 0);
  for (int g = 1; g < 8; ++g)
    CHECK(l.bytes(f.edge("h001/gpu" + std::to_string(g), "h001/pcie" + std::to_string(g / 2))) == doctest::Approx(one));
}

TEST_CASE("transfers: alltoall summed per rail moves the same bytes as every pair routed alone") {
  Fixture f("dgx-h100:4", {});
  std::vector<Transfer> fast = *collective_transfers(f.group, CollectiveOp::alltoall, NcclAlgo::ring, 32e6, {});
  CommGroup plain = f.group;
  for (size_t k = 0; k < plain.nodes.size(); ++k) plain.nodes.own(k).rail_nics.clear();
  std::vector<Transfer> slow = *collective_transfers(plain, CollectiveOp::alltoall, NcclAlgo::ring, 32e6, {});
  CHECK(slow.size() == 32 * 31);
  CHECK(fast.size() < slow.size());
  LinkLoad a(f.router, calibration_default()), b(f.router, calibration_default());
  REQUIRE(a.add(fast).ok());
  REQUIRE(b.add(slow).ok());
  for (EdgeId e = 0; e < f.cluster.num_edges(); ++e) CHECK(a.bytes(e) == doctest::Approx(b.bytes(e)));
  // Every rank sends (n-1)/n of its buffer.
  CHECK(sum_bytes(slow) == doctest::Approx(32e6 * 31));
}

TEST_CASE("transfers: algorithms the group cannot run are refused with the reason") {
  Fixture one("dgx-h100:1", {});
  CHECK(collective_transfers(one.group, CollectiveOp::all_reduce, NcclAlgo::nvls_tree, 1, {}).error() ==
        "algorithm nvls_tree cannot run here: NVLS tree needs more than one node");
  CHECK(collective_transfers(one.group, CollectiveOp::all_gather, NcclAlgo::tree, 1, {}).error() ==
        "algorithm tree cannot run here: NCCL's trees only run all_reduce");
  CHECK(collective_transfers(one.group, CollectiveOp::all_gather, NcclAlgo::pat, 1, {}).error() ==
        "algorithm pat cannot run here: PAT needs one GPU per node");
  Fixture pcie("pcie-l40s:1", {});
  CHECK(collective_transfers(pcie.group, CollectiveOp::all_reduce, NcclAlgo::nvls, 1, {}).error() ==
        "algorithm nvls cannot run here: NVLS needs every GPU on one NVSwitch");
  // PAT with one GPU per node: log2(n) rounds, (n-1)/n of the buffer per rank in all.
  Fixture spread("dgx-h100:4", {0, 8, 16, 24});
  std::vector<Transfer> pat = *collective_transfers(spread.group, CollectiveOp::all_gather, NcclAlgo::pat, 400, {});
  CHECK(pat.size() == 8);
  CHECK(sum_bytes(pat) == doctest::Approx(4 * 300));
}

}  // namespace topoplan

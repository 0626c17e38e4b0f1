// NVLink meshes without NVSwitches (DGX-1): the rings and chains NCCL's search builds on them, and
// what they make of collectives.
#include "cost/mesh_rings.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "cost/collective.h"
#include "topology/fabric.h"
#include "topology/fabric_plan.h"
#include "topology/routing.h"

namespace topoplan {
namespace {

// DGX-1 with V100 (nvidia-smi topo -m of the sample in ../shared/reference/samples): NV2 pairs
// 0-3, 0-4, 1-2, 1-5, 2-3, 4-7, 5-6, 6-7; NV1 pairs 0-1, 0-2, 1-3, 2-6, 3-7, 4-5, 4-6, 5-7.
Bonds dgx1_bonds() {
  return {{0, 1, 1, 2, 2, 0, 0, 0}, {1, 0, 2, 1, 0, 2, 0, 0}, {1, 2, 0, 2, 0, 0, 1, 0}, {2, 1, 2, 0, 0, 0, 0, 1},
          {2, 0, 0, 0, 0, 1, 1, 2}, {0, 2, 0, 0, 1, 0, 2, 1}, {0, 0, 1, 0, 1, 2, 0, 2}, {0, 0, 0, 1, 2, 1, 2, 0}};
}

Bonds subset(const Bonds& b, const std::vector<size_t>& keep) {
  Bonds out(keep.size(), std::vector<int>(keep.size()));
  for (size_t i = 0; i < keep.size(); ++i)
    for (size_t j = 0; j < keep.size(); ++j) out[i][j] = b[keep[i]][keep[j]];
  return out;
}

// Every ring visits each GPU once over bonded pairs, and no directed pair carries more rings than
// it has NVLinks.
void check_rings(const Bonds& b, const std::vector<std::vector<size_t>>& rings) {
  Bonds used(b.size(), std::vector<int>(b.size()));
  for (const std::vector<size_t>& r : rings) {
    std::vector<size_t> sorted = r;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i) CHECK(sorted[i] == i);
    for (size_t i = 0; i < r.size(); ++i) ++used[r[i]][r[(i + 1) % r.size()]];
  }
  for (size_t i = 0; i < b.size(); ++i)
    for (size_t j = 0; j < b.size(); ++j) CHECK(used[i][j] <= b[i][j]);
}

NodeType dgx1() {
  NodeType t;
  t.name = "dgx1-v100";
  t.gpu_model = "V100-SXM2";
  t.gpus = 8;
  t.nics = 4;
  t.nic_gbit_s = 100;
  t.nvlink_GBps = 150;  // 6 NVLink2 links x 25 GB/s
  t.pcie_GBps = 15.75;
  t.gpus_per_pcie_switch = 2;
  t.cpus = 2;
  t.cpu_link_GBps = 10;
  t.cpu_model = "Xeon-E5-2698v4";
  t.nvlink_bonds = dgx1_bonds();
  return t;
}

ClusterSpec dgx1_spec(int nodes) {
  ClusterSpec spec;
  spec.name = "dgx1:" + std::to_string(nodes);
  spec.node = dgx1();
  spec.nodes = nodes;
  spec.fabric = fabric_default(spec.node);
  return spec;
}

Cluster dgx1_cluster(int nodes) {
  Result<Cluster> c = cluster_build(dgx1_spec(nodes));
  REQUIRE_MESSAGE(c.ok(), c.error());
  return std::move(*c);
}

}  // namespace

TEST_CASE("mesh rings: DGX-1 packs six rings on six links per GPU, the double-bonded cycle first") {
  const Bonds b = dgx1_bonds();
  const std::vector<std::vector<size_t>> rings = mesh_rings(b);
  REQUIRE(rings.size() == 6);  // NCCL 2.19/2.27 logs: 12 channels = 6 rings, doubled
  check_rings(b, rings);
  // Six rings of eight hops fill all 48 directed links: every NVLink carries one ring each way.
  CHECK(rings[0] == std::vector<size_t>{0, 3, 2, 1, 5, 6, 7, 4});  // NCCL's channel 0 on DGX-1
  // GPUs 0-3 bond every pair (K4 with 1 or 2 links): 4 rings, GPU 0 has 4 links to them.
  check_rings(subset(b, {0, 1, 2, 3}), mesh_rings(subset(b, {0, 1, 2, 3})));
  CHECK(mesh_rings(subset(b, {0, 1, 2, 3})).size() == 4);
  // 0, 1, 4, 5 form a square of NV1 and NV2 sides: one ring each way.
  CHECK(mesh_rings(subset(b, {0, 1, 4, 5})).size() == 2);
  // A pair: as many rings as links; no ring without a bond, or through a GPU with one peer.
  CHECK(mesh_rings(subset(b, {0, 3})).size() == 2);
  CHECK(mesh_rings(subset(b, {0, 1})).size() == 1);
  CHECK(mesh_rings(subset(b, {0, 5})).empty());
  CHECK(mesh_rings({{0, 1, 0}, {1, 0, 1}, {0, 1, 0}}).empty());
  CHECK(mesh_rings({{0}}).empty());
}

TEST_CASE("mesh chains: each chain from its entry to its exit, on the links the others left free") {
  const Bonds b = dgx1_bonds();
  const std::vector<std::pair<size_t, size_t>> ends = {{0, 1}, {2, 3}, {4, 5}, {6, 7}};
  const std::vector<std::vector<size_t>> chains = mesh_chains(b, ends);
  REQUIRE(chains.size() == 4);
  Bonds used(8, std::vector<int>(8));
  for (size_t k = 0; k < chains.size(); ++k) {
    CHECK(chains[k].front() == ends[k].first);
    CHECK(chains[k].back() == ends[k].second);
    std::vector<size_t> sorted = chains[k];
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < 8; ++i) CHECK(sorted[i] == i);
    for (size_t i = 0; i + 1 < 8; ++i) {
      CHECK(b[chains[k][i]][chains[k][i + 1]] > 0);
      ++used[chains[k][i]][chains[k][i + 1]];
    }
  }
  // 28 hops on 48 directed links: balanced, no link carries more chains than it has NVLinks.
  for (size_t i = 0; i < 8; ++i)
    for (size_t j = 0; j < 8; ++j) CHECK(used[i][j] <= b[i][j]);
  // No chain: a GPU with one peer in the middle, or entry and exit not joined by a full path.
  CHECK(mesh_chains({{0, 1, 0}, {1, 0, 1}, {0, 1, 0}}, {{1, 0}}).empty());
  CHECK(mesh_chains({{0, 1, 0}, {1, 0, 1}, {0, 1, 0}}, {{0, 2}}) == std::vector<std::vector<size_t>>{{0, 1, 2}});
}

TEST_CASE("mesh: a DGX-1 node is built with direct bonds, routed over them, and NCCL's 12 channels") {
  const Cluster c = dgx1_cluster(1);
  int nvswitches = 0, bonds = 0;
  for (VertexId v = 0; v < c.num_devices(); ++v) nvswitches += c.device(v).kind == DeviceKind::nvswitch;
  for (EdgeId e : c.out_edges(c.gpus()[0]))
    if (c.link(e).kind == LinkKind::NVL) {
      ++bonds;
      CHECK(c.device(c.target(e)).kind == DeviceKind::gpu);
    }
  CHECK(nvswitches == 0);
  CHECK(bonds == 4);  // GPU 0's peers: 1 and 2 by one link, 3 and 4 by two
  // The plan counts what is built (16 bonds, no NVSwitch), so size limits hold before building.
  Result<FabricPlan> plan = fabric_plan(dgx1_spec(1));
  REQUIRE(plan.ok());
  CHECK(plan->devices == static_cast<int64_t>(c.num_devices()));
  CHECK(2 * plan->links == static_cast<int64_t>(c.num_edges()));

  Router router(c);
  Route r03 = router.route(c.gpus()[0], c.gpus()[3]).value(), r05 = router.route(c.gpus()[0], c.gpus()[5]).value();
  CHECK(r03.path_class == PathClass::NVL);
  CHECK(r03.bw_GBps == doctest::Approx(50));
  CHECK(r05.path_class == PathClass::NVB);  // through a peer that bonds to both

  const NcclTuning& t = nccl_tuning_default();
  CommGroup g = comm_group_make(c, router, c.gpus()).value();
  CHECK(g.mesh_rings == 6);
  const NcclComm comm = comm_group_nccl(t, c, g);
  CHECK(comm.graphs[static_cast<size_t>(NcclAlgo::ring)].n_channels == 6);
  CHECK(comm.graphs[static_cast<size_t>(NcclAlgo::ring)].bw_intra_GBps == doctest::Approx(t.nvlink_bw_GBps(70)));
  CHECK(comm.n_channels == 12);
  CHECK_FALSE(comm.nvls_support);
  // Node facts kept from the whole node's group serve a quad's and the whole node's again.
  CommNodeCache kept(c, router);
  const std::vector<VertexId> quad = {c.gpus()[0], c.gpus()[1], c.gpus()[2], c.gpus()[3]};
  for (const std::vector<VertexId>& gpus : {c.gpus(), quad, c.gpus(), quad})
    CHECK(comm_group_make(c, router, gpus, &kept).value() == comm_group_make(c, router, gpus).value());
}

TEST_CASE("mesh: which GPUs a group takes on a DGX-1 decides its bandwidth") {
  const Cluster c = dgx1_cluster(1);
  Router router(c);
  CollectiveModel model(c, router, nccl_tuning_default(), calibration_default());
  auto busbw = [&](std::vector<int> gpus) {
    CollectiveRequest r;
    r.op = CollectiveOp::all_reduce;
    r.bytes = 1 << 30;
    for (int i : gpus) r.gpus.push_back(c.gpus()[static_cast<size_t>(i)]);
    Result<CollectivePrediction> p = model.predict(r);
    REQUIRE_MESSAGE(p.ok(), p.error());
    return p->bytes / p->time_us * 1e-3 * 2.0 * (static_cast<double>(gpus.size()) - 1) /
           static_cast<double>(gpus.size());
  };
  const double all = busbw({0, 1, 2, 3, 4, 5, 6, 7});
  const double quad = busbw({0, 1, 2, 3}), square = busbw({0, 1, 4, 5});
  // Six rings on every link: below the links' 150 GB/s per GPU (six at 25), above one ring's 25.
  CHECK(all < 150);
  CHECK(all > 100);
  // Four rings on 0-3 against two on the square 0-1-5-4: about twice the bandwidth.
  CHECK(quad / square == doctest::Approx(2).epsilon(0.1));
  // A pair without a bond goes through a peer GPU at one link's speed, below a double bond.
  CHECK(busbw({0, 5}) < busbw({0, 3}));
}

}  // namespace topoplan

namespace topoplan {

TEST_CASE("mesh rings: a large full mesh is searched within a bounded budget, and what is found holds") {
  // 64 GPUs each bonded once to every other: far more cycles than the search visits.
  const size_t p = 64;
  Bonds full(p, std::vector<int>(p, 1));
  for (size_t i = 0; i < p; ++i) full[i][i] = 0;
  const std::vector<std::vector<size_t>> rings = mesh_rings(full);
  CHECK(!rings.empty());
  check_rings(full, rings);
  std::vector<std::pair<size_t, size_t>> ends;
  for (size_t k = 0; k < 32; ++k) ends.emplace_back(2 * k, 2 * k + 1);
  const std::vector<std::vector<size_t>> chains = mesh_chains(full, ends);
  CHECK(chains.size() == ends.size());
}

}  // namespace topoplan

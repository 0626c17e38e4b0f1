#include "cost/nccl_tuning.h"

#include <doctest/doctest.h>

#include <cmath>

namespace topoplan {
namespace {

bool finite_non_negative(double x) { return std::isfinite(x) && x >= 0; }

// One 8-GPU H100 node as NCCL 2.25.1's search finds it (docs/nccl-model.md, "Channels"): ring and
// tree 6 channels x 60 GB/s duplicated to 12 x 30, NVLS 8 heads x 40 GB/s, 24 channels after
// postset.
NcclComm h100_node() {
  NcclComm c;
  c.n_ranks = 8;
  c.n_nodes = 1;
  c.compute_capability = 90;
  c.n_channels = 24;
  c.has_nvswitch = true;
  c.nvls_support = true;
  NcclGraph ring{12, 30.0, 30.0, true, 0.0, true, false};
  c.graphs[static_cast<size_t>(NcclAlgo::ring)] = ring;
  c.graphs[static_cast<size_t>(NcclAlgo::tree)] = ring;
  c.graphs[static_cast<size_t>(NcclAlgo::nvls)] = NcclGraph{8, 40.0, 60.0, true, 0.0, false, false};
  return c;
}

}  // namespace

TEST_CASE("nccl_tuning: busbw factors follow nccl-tests PERFORMANCE.md") {
  CHECK(nccl_busbw_factor(CollectiveOp::all_reduce, 8) == doctest::Approx(2.0 * 7 / 8));
  CHECK(nccl_busbw_factor(CollectiveOp::all_gather, 8) == doctest::Approx(7.0 / 8));
  CHECK(nccl_busbw_factor(CollectiveOp::reduce_scatter, 16) == doctest::Approx(15.0 / 16));
  CHECK(nccl_busbw_factor(CollectiveOp::alltoall, 4) == doctest::Approx(3.0 / 4));
  CHECK(nccl_busbw_factor(CollectiveOp::broadcast, 8) == 1.0);
  CHECK(nccl_busbw_factor(CollectiveOp::reduce, 8) == 1.0);
  CHECK(nccl_busbw_factor(CollectiveOp::sendrecv, 2) == 1.0);
  CHECK(nccl_busbw_factor(CollectiveOp::all_reduce, 1) == 0.0);
  CHECK(nccl_busbw_factor(CollectiveOp::all_reduce, 0) == 0.0);
  CHECK(nccl_busbw_factor_in_network(8) == doctest::Approx(7.0 / 9));
}

TEST_CASE("nccl_tuning: collective names parse, round-trip and suggest") {
  for (const auto& name : collective_op_names()) {
    auto op = collective_op_from(name);
    REQUIRE(op);
    CHECK(to_string(*op) == name);
  }
  CHECK(collective_op_from("all_reduce") == CollectiveOp::all_reduce);
  CHECK(collective_op_from("ALL-GATHER") == CollectiveOp::all_gather);
  CHECK_FALSE(collective_op_from("allreduce"));
  CHECK_FALSE(collective_op_from(""));

  auto bad = parse_collective_op("allreduce");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error() == "unknown collective 'allreduce', did you mean 'all_reduce'?");
  auto typo = parse_collective_op("alltoal");
  REQUIRE_FALSE(typo.ok());
  CHECK(typo.error().find("did you mean 'alltoall'?") != std::string::npos);
  auto far = parse_collective_op("matmul");
  REQUIRE_FALSE(far.ok());
  CHECK(far.error() == "unknown collective 'matmul'");
  auto good = parse_collective_op("reduce_scatter");
  REQUIRE(good.ok());
  CHECK(*good == CollectiveOp::reduce_scatter);
}

TEST_CASE("nccl_tuning: algorithm and protocol names in both spellings") {
  CHECK(nccl_algo_names().size() == kNcclAlgos);
  for (int a = 0; a < kNcclAlgos; ++a) {
    auto algo = static_cast<NcclAlgo>(a);
    CHECK(nccl_algo_from(to_string(algo)) == algo);
    CHECK(nccl_algo_from(nccl_name(algo)) == algo);
  }
  for (int p = 0; p < kNcclProtos; ++p) {
    auto proto = static_cast<NcclProto>(p);
    CHECK(nccl_proto_from(to_string(proto)) == proto);
    CHECK(nccl_proto_from(nccl_name(proto)) == proto);
  }
  CHECK(nccl_algo_from("NVLSTree") == NcclAlgo::nvls_tree);
  CHECK(nccl_algo_from("collnet_direct") == NcclAlgo::collnet_direct);
  CHECK(nccl_name(NcclAlgo::collnet_chain) == "CollNetChain");
  CHECK(nccl_proto_from("Simple") == NcclProto::simple);
  CHECK_FALSE(nccl_algo_from("butterfly"));
  CHECK(to_string(NcclHw::net) == "net");
  CHECK(to_string(GpuArch::hopper) == "hopper");
}

TEST_CASE("nccl_tuning: default table is sane") {
  const NcclTuning& t = nccl_tuning_default();
  CHECK(t.version == "NCCL 2.25.1");
  CHECK(t.source.find("80f6bda4") != std::string::npos);
  for (const auto& row : t.base_latency_us)
    for (double v : row) CHECK(finite_non_negative(v));
  for (const auto& hw : t.hw_latency_us)
    for (const auto& row : hw)
      for (double v : row) CHECK(finite_non_negative(v));
  for (const auto* table : {&t.ll_max_bw_GBps, &t.per_channel_max_ring_ll128_bw_GBps,
                            &t.per_channel_max_tree_ll128_bw_GBps, &t.per_channel_max_tree_bw_GBps})
    for (const auto& row : *table)
      for (double v : row) CHECK((std::isfinite(v) && v > 0));

  // LL exists to be the low-latency protocol: below Simple wherever both are defined.
  for (auto a : {NcclAlgo::tree, NcclAlgo::ring}) {
    size_t ai = static_cast<size_t>(a);
    CHECK(t.base_latency_us[ai][0] < t.base_latency_us[ai][2]);
    for (const auto& hw : t.hw_latency_us) CHECK(hw[ai][0] < hw[ai][2]);
  }
  // The network is the slowest hop for every algorithm that has a latency on it.
  for (int a = 0; a < kNcclAlgos; ++a)
    for (int p = 0; p < kNcclProtos; ++p) {
      double net = t.hw_latency_us[static_cast<size_t>(NcclHw::net)][a][p];
      double nvl = t.hw_latency_us[static_cast<size_t>(NcclHw::nvlink)][a][p];
      if (net > 0 && nvl > 0 && a != static_cast<int>(NcclAlgo::nvls) && a != static_cast<int>(NcclAlgo::nvls_tree))
        CHECK(net >= nvl);
    }

  for (double f :
       {t.ring_ll_factor, t.ring_ll128_factor, t.tree_factor, t.tree_ll_factor, t.tree_ll128_factor_one_node,
        t.tree_ll128_factor_multi_node, t.tree_simple_pattern_factor, t.pat_factor, t.collnet_direct_sm90_factor,
        t.nvls_algbw_ratio, t.tree_algbw_ratio, t.ll_data_fraction, t.ll128_data_fraction})
    CHECK((f > 0 && f <= 1));
  CHECK(t.ll_data_fraction == 0.5);
  CHECK(t.ll128_data_fraction == doctest::Approx(120.0 / 128));
  CHECK(t.ll_data_fraction < t.ll128_data_fraction);
  for (const auto& row : t.tree_correction)
    for (double v : row) CHECK((v > 0 && v <= 1));

  for (const auto* speeds : {&t.search_speeds_intra_GBps, &t.search_speeds_inter_GBps})
    for (const auto& s : *speeds) {
      REQUIRE_FALSE(s.empty());
      for (size_t i = 1; i < s.size(); ++i) CHECK(s[i] < s[i - 1]);
    }
  CHECK(t.ring_graph_max_channels * 2 == t.max_channels);
  CHECK(t.nvls_channels_sm90 == 16);
  CHECK(t.nvls_channels_sm100 == 32);
  CHECK(t.buffer_bytes[2] == 4 << 20);

  CHECK(t.nvlink_bw_GBps(90) == doctest::Approx(20.6));
  CHECK(t.nvlink_bw_GBps(86) == 12.0);
  CHECK(t.nvlink_bw_GBps(80) == 20.0);
  CHECK(t.nvlink_bw_GBps(100) == 40.0);
  CHECK(t.pci_bw == 12.0);
  CHECK(t.net_bw == 12.0);
}

TEST_CASE("nccl_tuning: indices and step counts") {
  CHECK(gpu_arch_from_compute_capability(70) == GpuArch::volta);
  CHECK(gpu_arch_from_compute_capability(86) == GpuArch::ampere);
  CHECK(gpu_arch_from_compute_capability(90) == GpuArch::hopper);
  CHECK(gpu_arch_from_compute_capability(100) == GpuArch::blackwell);
  CHECK(nccl_node_scale(1) == 0);
  CHECK(nccl_node_scale(2) == 1);
  CHECK(nccl_node_scale(64) == 2);
  CHECK(nccl_ring_steps(CollectiveOp::all_reduce, 8) == 14);
  CHECK(nccl_ring_steps(CollectiveOp::all_gather, 8) == 7);
  CHECK(nccl_ring_steps(CollectiveOp::broadcast, 8) == 8);
  CHECK(nccl_ring_inter_steps(CollectiveOp::all_reduce, 1) == 0);
  CHECK(nccl_ring_inter_steps(CollectiveOp::all_reduce, 4) == 6);
  CHECK(nccl_ring_inter_steps(CollectiveOp::reduce_scatter, 4) == 3);
  CHECK(nccl_log2i(0) == -1);
  CHECK(nccl_log2i(1) == 0);
  CHECK(nccl_log2i(1023) == 9);
  CHECK(nccl_log2i(1024) == 10);
  CHECK(nccl_ll128_default_enabled(90, PathClass::NVL, PathClass::PXN));
  CHECK_FALSE(nccl_ll128_default_enabled(80, PathClass::NVL, PathClass::PXN));
  CHECK(nccl_ll128_default_enabled(80, PathClass::NVL, PathClass::PXB));
  CHECK_FALSE(nccl_ll128_default_enabled(86, PathClass::NVL, PathClass::PIX));
  CHECK_FALSE(nccl_ll128_default_enabled(90, PathClass::PIX, PathClass::PIX));
}

TEST_CASE("nccl_tuning: one H100 node reproduces ring ~360 and NVLS ~470 GB/s busbw") {
  const NcclTuning& t = nccl_tuning_default();
  NcclComm c = h100_node();
  const auto ar = CollectiveOp::all_reduce;

  NcclEstimate ring = nccl_estimate(t, c, ar, NcclAlgo::ring, NcclProto::simple);
  REQUIRE(ring.available);
  CHECK(ring.bandwidth_GBps == doctest::Approx(360.0 * 8 / 14));
  CHECK(ring.bandwidth_GBps * nccl_busbw_factor(ar, 8) == doctest::Approx(360.0));
  CHECK(ring.latency_us == doctest::Approx(8.4 + 14 * 3.4));

  NcclEstimate ll = nccl_estimate(t, c, ar, NcclAlgo::ring, NcclProto::ll);
  REQUIRE(ll.available);
  CHECK(ll.latency_us == doctest::Approx(6.6 + 14 * 0.6));
  CHECK(ll.bandwidth_GBps == doctest::Approx(141.0 * 8 / 14));  // capped by llMaxBw (Hopper, 1 node)
  CHECK(ll.latency_us < ring.latency_us);

  NcclEstimate nvls = nccl_estimate(t, c, ar, NcclAlgo::nvls, NcclProto::simple);
  REQUIRE(nvls.available);
  CHECK(nvls.latency_us == doctest::Approx(25.0));
  CHECK(nvls.bandwidth_GBps == doctest::Approx(8 * 40.0 * 5 / 6));
  double nvls_busbw = nvls.bandwidth_GBps * nccl_busbw_factor(ar, 8);
  CHECK(nvls_busbw > 450);
  CHECK(nvls_busbw < 490);
  CHECK_FALSE(nccl_estimate(t, c, ar, NcclAlgo::nvls, NcclProto::ll).available);           // Simple only
  CHECK_FALSE(nccl_estimate(t, c, ar, NcclAlgo::nvls_tree, NcclProto::simple).available);  // needs > 1 node
  CHECK_FALSE(nccl_estimate(t, c, ar, NcclAlgo::collnet_direct, NcclProto::simple).available);
  CHECK_FALSE(nccl_estimate(t, c, CollectiveOp::all_gather, NcclAlgo::pat, NcclProto::simple).available);
  CHECK_FALSE(nccl_estimate(t, c, CollectiveOp::alltoall, NcclAlgo::ring, NcclProto::simple).available);
  CHECK_FALSE(nccl_estimate(t, c, CollectiveOp::broadcast, NcclAlgo::tree, NcclProto::simple).available);

  // Ring all_gather: busbw is the graph bandwidth, 12 x 30.
  NcclEstimate ag = nccl_estimate(t, c, CollectiveOp::all_gather, NcclAlgo::ring, NcclProto::simple);
  REQUIRE(ag.available);
  CHECK(ag.bandwidth_GBps * nccl_busbw_factor(CollectiveOp::all_gather, 8) == doctest::Approx(360.0));

  // Small messages go LL, huge all_reduce goes NVLS.
  NcclChoice small = nccl_choose(t, c, ar, 1024);
  REQUIRE(small.ok);
  CHECK(small.proto == NcclProto::ll);
  NcclChoice big = nccl_choose(t, c, ar, double(1 << 30));
  REQUIRE(big.ok);
  CHECK(big.algo == NcclAlgo::nvls);
  CHECK(big.time_us == doctest::Approx(25.0 + double(1 << 30) / (1000.0 * 8 * 40.0 * 5 / 6)));
  // Without NVLS the big one falls back to ring/Simple.
  c.nvls_support = false;
  NcclChoice fallback = nccl_choose(t, c, ar, double(1 << 30));
  CHECK(fallback.algo == NcclAlgo::ring);
  CHECK(fallback.proto == NcclProto::simple);
  // LL128 off removes it from the choice.
  c.ll128_enabled = false;
  CHECK_FALSE(nccl_estimate(t, c, ar, NcclAlgo::ring, NcclProto::ll128).available);
  CHECK(nccl_time_us(t, c, ar, NcclAlgo::ring, NcclProto::ll128, 1e6) < 0);
}

TEST_CASE("nccl_tuning: multi-node rules (tree, PAT, NVLS tree, plateau)") {
  const NcclTuning& t = nccl_tuning_default();
  NcclComm c = h100_node();
  c.n_nodes = 4;
  c.n_ranks = 32;
  c.n_channels = 16;
  for (auto a : {NcclAlgo::ring, NcclAlgo::tree})
    c.graphs[static_cast<size_t>(a)] = NcclGraph{8, 45.0, 45.0, true, 0.0, true, false};
  const auto ar = CollectiveOp::all_reduce;

  NcclEstimate tree = nccl_estimate(t, c, ar, NcclAlgo::tree, NcclProto::simple);
  REQUIRE(tree.available);
  // 8.4 + 2 * ((8-1) * 4.0 + log2(4) * 14), Simple NET latency with no NIC latency given.
  CHECK(tree.latency_us == doctest::Approx(8.4 + 2 * (7 * 4.0 + 2 * 14.0)));
  CHECK(nccl_estimate(t, c, ar, NcclAlgo::nvls_tree, NcclProto::simple).available);
  CHECK_FALSE(nccl_estimate(t, c, ar, NcclAlgo::nvls, NcclProto::simple).available);  // needs CollNet

  // Ring latency: the inter-node steps pay the network latency.
  NcclEstimate ring = nccl_estimate(t, c, ar, NcclAlgo::ring, NcclProto::simple);
  REQUIRE(ring.available);
  double intra = std::max(3.4, 1.0 * 3);  // Intel net overhead x3 for Simple
  CHECK(ring.latency_us == doctest::Approx(8.4 + (62 - 6) * intra + 6 * 14.0));
  // Past the plateau the ring's latency grows by 1.4 on SM90.
  double bytes = 1e8;
  CHECK(nccl_time_us(t, c, ar, NcclAlgo::ring, NcclProto::simple, bytes) ==
        doctest::Approx(ring.latency_us * 1.4 + bytes / (1000.0 * ring.bandwidth_GBps)));

  // PAT: one GPU per node, all_gather / reduce_scatter only.
  NcclComm one;
  one.n_ranks = one.n_nodes = 16;
  one.compute_capability = 90;
  one.graphs[static_cast<size_t>(NcclAlgo::tree)] = NcclGraph{2, 24.0, 24.0, false, 0.0, true, false};
  NcclEstimate pat = nccl_estimate(t, one, CollectiveOp::all_gather, NcclAlgo::pat, NcclProto::simple);
  REQUIRE(pat.available);
  CHECK(pat.latency_us == doctest::Approx(8.0 + 4 * (14.0 / 3.5) + 16 * 2.8));
  CHECK(pat.bandwidth_GBps == doctest::Approx(2 * 24.0 * 0.75));
  CHECK_FALSE(nccl_estimate(t, one, ar, NcclAlgo::pat, NcclProto::simple).available);
  CHECK_FALSE(nccl_estimate(t, c, CollectiveOp::all_gather, NcclAlgo::pat, NcclProto::simple).available);
}

}  // namespace topoplan

#include "cost/collective.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>

#include "base/index_list.h"
#include "base/units.h"
#include "cost/transfers.h"
#include "topology/node_types.h"

#include "tests/support.h"

namespace topoplan {
namespace {

struct Model {
  Cluster cluster;
  Router router;
  Calibration cal;
  CollectiveModel model;
  explicit Model(const std::string& spec, Calibration c = calibration_default())
      : cluster(test::load_cluster(spec)),
        router(cluster),
        cal(c),
        model(cluster, router, nccl_tuning_default(), cal) {}
  CollectiveRequest request(CollectiveOp op, double bytes, std::vector<int> gpus = {}) {
    if (gpus.empty()) {
      gpus.resize(cluster.gpus().size());
      std::iota(gpus.begin(), gpus.end(), 0);
    }
    CollectiveRequest r;
    r.op = op;
    r.bytes = bytes;
    for (int i : gpus) r.gpus.push_back(cluster.gpus()[static_cast<size_t>(i)]);
    return r;
  }
  CollectivePrediction predict(const CollectiveRequest& r) {
    Result<CollectivePrediction> p = model.predict(r);
    REQUIRE_MESSAGE(p.ok(), p.error());
    return *p;
  }
};

}  // namespace

TEST_CASE("collective: NCCL's channel search on common nodes") {
  const NcclTuning& t = nccl_tuning_default();
  auto comm = [&](const std::string& spec) {
    Cluster c = test::load_cluster(spec);
    Router r(c);
    return comm_group_nccl(t, c, comm_group_make(c, r, c.gpus()).value());
  };
  // docs/nccl-model.md section 5: H100 6 x 60 -> 12 x 30, A100 6 x 40 -> 12 x 20, then doubled.
  NcclComm h100 = comm("dgx-h100:1");
  CHECK(h100.graphs[static_cast<size_t>(NcclAlgo::ring)].n_channels == 12);
  CHECK(h100.graphs[static_cast<size_t>(NcclAlgo::ring)].bw_intra_GBps == 30);
  CHECK(h100.n_channels == 24);
  CHECK(h100.nvls_support);
  CHECK(h100.ll128_enabled);
  CHECK(h100.cpu == NcclCpu::intel_x86);
  NcclComm a100 = comm("dgx-a100:1");
  CHECK(a100.graphs[static_cast<size_t>(NcclAlgo::ring)].n_channels == 12);
  CHECK(a100.graphs[static_cast<size_t>(NcclAlgo::ring)].bw_intra_GBps == 20);
  CHECK_FALSE(a100.nvls_support);
  CHECK(a100.cpu == NcclCpu::amd_x86);
  // Across nodes each of the 8 NICs carries a channel: 8 x 45 GB/s, no split below 50 on SM90.
  NcclComm two = comm("dgx-h100:2");
  CHECK(two.n_nodes == 2);
  CHECK(two.graphs[static_cast<size_t>(NcclAlgo::ring)].n_channels == 8);
  CHECK(two.graphs[static_cast<size_t>(NcclAlgo::ring)].bw_inter_GBps == 45);
  // NVL72: the rack is one node to NCCL.
  NcclComm rack = comm("gb200-nvl72:1");
  CHECK(rack.n_nodes == 1);
  CHECK(rack.n_ranks == 72);
  CHECK(rack.cpu == NcclCpu::arm);
}

TEST_CASE("collective: the NVLS graph as NCCL's search builds it (heads, bwIntra, bwInter)") {
  const NcclTuning& t = nccl_tuning_default();
  struct Case {
    std::string spec, gpus;
    int heads;
    double intra, inter;
  };
  // docs/research/issue-13-nccl-nvls.md (b1), worked from search.cc: on one node every GPU heads
  // (at most 32) at the first speed with (H + 1) s within its NVLink; across nodes one head per
  // NIC, from the inter-node speed list.
  const Case cases[] = {
      {"dgx-h100:1", "", 8, 40, 60},     {"dgx-h100:1", "0-3", 4, 60, 60},      {"dgx-h100:1", "0-4", 5, 60, 60},
      {"dgx-h100:1", "0-5", 6, 50, 60},  {"dgx-h100:1", "0-6", 7, 40, 60},      {"hgx-b200:1", "", 8, 80, 90},
      {"gb200-nvl72:1", "", 32, 20, 40}, {"gb200-nvl72:1", "0-15", 16, 40, 80}, {"dgx-h100:2", "", 8, 40, 48},
      {"hgx-b200:2", "", 8, 48, 48},     {"gb200-nvl72:2", "", 32, 20, 40},
  };
  for (const Case& k : cases) {
    CAPTURE(k.spec);
    CAPTURE(k.gpus);
    Cluster c = test::load_cluster(k.spec);
    Router r(c);
    std::vector<VertexId> gpus = c.gpus();
    if (!k.gpus.empty()) {
      Result<std::vector<int>> idx = parse_index_list(k.gpus, static_cast<int>(gpus.size()));
      REQUIRE(idx.ok());
      gpus.clear();
      for (int i : *idx) gpus.push_back(c.gpus()[static_cast<size_t>(i)]);
    }
    NcclComm comm = comm_group_nccl(t, c, comm_group_make(c, r, gpus).value());
    const NcclGraph& g = comm.graphs[static_cast<size_t>(NcclAlgo::nvls)];
    CHECK(comm.nvls_support);
    CHECK(g.n_channels == k.heads);
    CHECK(g.bw_intra_GBps == k.intra);
    CHECK(g.bw_inter_GBps == k.inter);
  }
  // No NVLS on A100 (no multicast) nor on two Hopper GPUs (transport/nvls.cc).
  Cluster a100 = test::load_cluster("dgx-a100:1");
  Router ra(a100);
  CHECK_FALSE(comm_group_nccl(t, a100, comm_group_make(a100, ra, a100.gpus()).value()).nvls_support);
  Cluster h100 = test::load_cluster("dgx-h100:1");
  Router rh(h100);
  CHECK_FALSE(
      comm_group_nccl(t, h100, comm_group_make(h100, rh, {h100.gpus()[0], h100.gpus()[1]}).value()).nvls_support);
}

TEST_CASE("collective: a rack's NVLS has 32 heads, and across racks only the heads' NICs carry it") {
  Model one("gb200-nvl72:1");
  CollectiveRequest req = one.request(CollectiveOp::all_reduce, 1 << 30);
  req.algo = NcclAlgo::nvls;
  CollectivePrediction p = one.predict(req);
  // A head's link carries the buffer and its own 1/32 slice each way.
  CHECK(p.bottleneck.bytes == doctest::Approx((1 << 30) * (1 + 1.0 / 32)));
  Model two("gb200-nvl72:2");
  CommGroup g = comm_group_make(two.cluster, two.router, two.cluster.gpus()).value();
  CHECK(g.nvls_heads() == 32);
  Result<std::vector<Transfer>> tr =
      collective_transfers(g, CollectiveOp::all_reduce, NcclAlgo::nvls_tree, 1 << 30, {});
  REQUIRE(tr.ok());
  std::set<VertexId> senders;
  for (const Transfer& x : *tr)
    if (x.mode == FlowMode::copy) senders.insert(x.src);
  CHECK(senders.size() == 64);  // 32 heads in each rack, 40 GPUs of each leave the network alone
}

TEST_CASE("collective: auto takes NCCL's pick; the links may disagree, and the cases say why") {
  const NcclTuning& t = nccl_tuning_default();
  struct Case {
    std::string spec, gpus;
    CollectiveOp op;
    double bytes;
    NcclAlgo pick;
    NcclProto proto;
    std::string why;  // where topoplan's links would pick another pair
  };
  const Case cases[] = {
      {"dgx-h100:1", "", CollectiveOp::all_reduce, 1 << 30, NcclAlgo::nvls, NcclProto::simple, ""},
      {"dgx-h100:1", "", CollectiveOp::all_reduce, 4096, NcclAlgo::ring, NcclProto::ll, ""},
      // NCCL 2.25 rates NVLS at 5/6 of heads x speed: 4 x 60 x 5/6 = 200 GB/s against the ring's
      // 240, so it runs rings on 4 Hopper GPUs, as the published 8x H200 sweep shows (NCCL 2.27.7,
      // ring at 4 GPUs, NVLS from 5); on the links the two are within 1 %.
      {"dgx-h100:1", "0-3", CollectiveOp::all_reduce, 1 << 30, NcclAlgo::ring, NcclProto::simple, ""},
      {"dgx-h100:1", "0-4", CollectiveOp::all_reduce, 1 << 30, NcclAlgo::nvls, NcclProto::simple, ""},
      // Blackwell: the ring's 720 GB/s beats NVLS's 5 x 90 x 5/6 until 6 GPUs (published p6-b200
      // sweep, NCCL 2.27.7: ring at 4 and 5, NVLS from 6).
      {"hgx-b200:1", "0-4", CollectiveOp::all_reduce, 1 << 30, NcclAlgo::ring, NcclProto::simple, "nvls"},
      {"hgx-b200:1", "0-5", CollectiveOp::all_reduce, 1 << 30, NcclAlgo::nvls, NcclProto::simple, ""},
      {"dgx-a100:1", "", CollectiveOp::all_reduce, 128 << 20, NcclAlgo::ring, NcclProto::simple, ""},
      {"dgx-h100:2", "", CollectiveOp::all_reduce, 1LL << 33, NcclAlgo::nvls_tree, NcclProto::simple, ""},
  };
  for (const Case& k : cases) {
    CAPTURE(k.spec);
    CAPTURE(k.gpus);
    CAPTURE(k.bytes);
    Model m(k.spec);
    std::vector<int> idx;
    if (!k.gpus.empty()) idx = parse_index_list(k.gpus, static_cast<int>(m.cluster.gpus().size())).value();
    CollectivePrediction p = m.predict(m.request(k.op, k.bytes, idx));
    NcclChoice nccl = nccl_choose(t, comm_group_nccl(t, m.cluster, m.model.group()), k.op, k.bytes);
    CHECK(p.tuner_pick);
    CHECK(p.algo == nccl.algo);
    CHECK(p.proto == nccl.proto);
    CHECK(p.algo == k.pick);
    CHECK(p.proto == k.proto);
    const CollectiveCandidate* fastest = &p.candidates.front();
    for (const CollectiveCandidate& c : p.candidates)
      if (c.time_us < fastest->time_us) fastest = &c;
    if (k.why.empty()) {
      CHECK(fastest->algo == p.algo);
      CHECK(fastest->proto == p.proto);
    } else {
      CHECK((std::string(to_string(fastest->algo)) == k.why || std::string(to_string(fastest->proto)) == k.why));
    }
  }
}

TEST_CASE("collective: auto takes NCCL's pick, and forcing one is honoured") {
  Model m("dgx-h100:1");
  CollectivePrediction p = m.predict(m.request(CollectiveOp::all_reduce, 1 << 30));
  CHECK(p.algorithm == "nvls");
  CHECK(p.proto == NcclProto::simple);
  CHECK(p.candidates.front().time_us == p.time_us);
  CHECK(p.busbw_GBps == doctest::Approx(p.algbw_GBps * 2 * 7 / 8));
  CHECK(p.bottleneck.kind == LinkKind::NVL);
  CollectiveRequest ring = m.request(CollectiveOp::all_reduce, 1 << 30);
  ring.algo = NcclAlgo::ring;
  ring.proto = NcclProto::ll128;
  CollectivePrediction r = m.predict(ring);
  CHECK(r.algorithm == "ring");
  CHECK(r.proto == NcclProto::ll128);
  CHECK(r.time_us > p.time_us);
  // Small messages take LL, whose latency is lowest.
  CHECK(m.predict(m.request(CollectiveOp::all_reduce, 4096)).proto == NcclProto::ll);
  // Four Hopper GPUs stay on rings (newer NCCL keeps NVLS for five and more).
  CHECK(m.predict(m.request(CollectiveOp::all_reduce, 1 << 30, {0, 1, 2, 3})).algorithm == "ring");
  CollectiveRequest bad = m.request(CollectiveOp::all_gather, 1 << 20);
  bad.algo = NcclAlgo::tree;
  CHECK(m.model.predict(bad).error() ==
        "no way to run all_gather with --algo tree on this group: algorithm tree cannot run here: NCCL's trees only "
        "run all_reduce");
}

TEST_CASE("collective: predict_pick gives predict's choice, routing the picked algorithm alone") {
  // Groups of one node, of one GPU per host (PAT or ring), of several GPUs per host; every op,
  // small to large, chosen and forced; the busiest link read for the pick is a fresh load's.
  struct Case {
    const char* cluster;
    std::vector<int> gpus;
  };
  const std::vector<Case> cases = {{"dgx-h100:1", {}},
                                   {"dgx-h100:8", {0, 8, 16, 24, 32, 40, 48, 56}},
                                   {"dgx-h100:4", {}},
                                   {"dgx-a100:2", {0, 1, 2, 3, 8, 9, 10, 11}}};
  for (const Case& k : cases) {
    CAPTURE(k.cluster);
    Model all(k.cluster), pick(k.cluster);
    for (CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter,
                            CollectiveOp::broadcast, CollectiveOp::alltoall, CollectiveOp::sendrecv})
      for (double bytes : {4096.0, 1048576.0, 268435456.0, 4294967296.0})
        for (std::optional<NcclAlgo> algo : {std::optional<NcclAlgo>{}, std::optional(NcclAlgo::ring),
                                             std::optional(NcclAlgo::tree), std::optional(NcclAlgo::pat)}) {
          CAPTURE(to_string(op));
          CAPTURE(bytes);
          CAPTURE(algo ? std::string(to_string(*algo)) : "auto");
          CollectiveRequest req = all.request(op, bytes, k.gpus);
          req.algo = algo;
          Result<CollectivePrediction> a = all.model.predict(req), b = pick.model.predict_pick(req);
          REQUIRE(a.ok() == b.ok());
          if (!a) {
            CHECK(a.error() == b.error());
            continue;
          }
          CHECK(a->algorithm == b->algorithm);
          CHECK(a->proto == b->proto);
          CHECK(a->time_us == b->time_us);
          CHECK(a->latency_us == b->latency_us);
          CHECK(a->transfer_us == b->transfer_us);
          CHECK(a->channel_bound == b->channel_bound);
          CHECK(a->tuner_pick == b->tuner_pick);
          CHECK(a->bottleneck.edge == b->bottleneck.edge);
          CHECK(a->bottleneck.bytes == b->bottleneck.bytes);
          if (b->tuner_pick && op != CollectiveOp::alltoall && op != CollectiveOp::sendrecv)
            for (const CollectiveCandidate& c : b->candidates) CHECK(c.algo == b->algo);
          Result<std::vector<Transfer>> t = collective_transfers(
              pick.model.group(), op, b->algo, 1.0, {b->channels, nccl_tuning_default().p2p_net_channels_per_peer});
          REQUIRE(t.ok());
          LinkLoad fresh(pick.router, pick.cal);
          REQUIRE(fresh.add(*t).ok());
          CHECK(pick.model.busiest_us_per_byte(b->algo) == fresh.busiest().busy_us);
        }
  }
}

TEST_CASE("collective: a sweep grows in time and bandwidth with the size") {
  Model m("dgx-h100:2");
  Result<std::vector<CollectivePrediction>> rows = m.model.sweep(m.request(CollectiveOp::all_reduce, 0), 8, 1LL << 34);
  REQUIRE(rows.ok());
  CHECK(rows->size() == 32);
  for (size_t i = 1; i < rows->size(); ++i) {
    CHECK((*rows)[i].time_us >= (*rows)[i - 1].time_us);
    CHECK((*rows)[i].bytes == 2 * (*rows)[i - 1].bytes);
  }
  CHECK(rows->back().busbw_GBps > 100 * rows->front().busbw_GBps);
  // The same size predicted alone gives the same answer as inside the sweep.
  CollectivePrediction one = m.predict(m.request(CollectiveOp::all_reduce, 1 << 20));
  CHECK(one.time_us == doctest::Approx((*rows)[17].time_us));
}

TEST_CASE("collective: the slowest hop decides; across nodes it is the NIC") {
  Model m("dgx-h100:2");
  CollectiveRequest r = m.request(CollectiveOp::sendrecv, 1 << 30, {0, 8});
  CollectivePrediction p = m.predict(r);
  CHECK(p.algorithm == "p2p");
  CHECK(p.bottleneck.kind == LinkKind::NET);
  CHECK(p.bottleneck.bw_GBps == doctest::Approx(50 * 0.95));
  // Within a node the same send/recv runs on NVLink, many times faster.
  CollectivePrediction local = m.predict(m.request(CollectiveOp::sendrecv, 1 << 30, {0, 1}));
  CHECK(local.bottleneck.kind == LinkKind::NVL);
  CHECK(local.time_us * 5 < p.time_us);
  // alltoall is bounded by each GPU's own NIC: it does not aggregate NICs.
  CollectivePrediction a2a = m.predict(m.request(CollectiveOp::alltoall, 1 << 30));
  CHECK(a2a.algorithm == "pairwise");
  CHECK(a2a.bottleneck.kind == LinkKind::NET);
  CHECK(a2a.transfer_us == doctest::Approx((1 << 30) / 16.0 * 8 / (1000 * 47.5)).epsilon(0.01));
}

TEST_CASE("collective: a ring pays a DCI hop's propagation once per lap, and its window per round trip") {
  Model m(((test::source_dir() / "data/clusters/two-site-h100.json").string()));
  const int across = static_cast<int>(m.cluster.gpus().size() / 2);
  CollectivePrediction far = m.predict(m.request(CollectiveOp::all_reduce, 4096, {0, across}));
  CollectivePrediction near = m.predict(m.request(CollectiveOp::all_reduce, 4096, {0, 8}));
  // Two ranks: the reduce-scatter step and the all-gather step, each over 100 km (490 us one way).
  CHECK(far.time_us - near.time_us == doctest::Approx(2 * 490).epsilon(0.02));
  // Every GPU of both sites, 2 MiB: a chunk crosses each way once on its lap, not once per step;
  // but each of the 1,023 steps moves 2 KiB, and a connection holds 8 of them per 0.98 ms round
  // trip, so the DCI hop waits 1,023 / 8 round trips, the first of them the propagation (LL,
  // NCCL's pick).
  CollectivePrediction ring = m.predict(m.request(CollectiveOp::all_gather, 2 << 20));
  CHECK(ring.algorithm == "ring");
  CHECK(ring.proto == NcclProto::ll);
  CHECK(ring.dci_us == doctest::Approx(2 * 492).epsilon(0.01));
  const CollectiveCandidate& small = ring.candidates.front();
  CHECK(small.window_us == doctest::Approx((1023.0 / 8 - 1) * 2 * 492).epsilon(0.01));
  CHECK(ring.time_us < 150e3);
  // A large call is held to each channel's 2 MiB in flight (four 512 KiB slices of its 1 MiB
  // chunks) per round trip: 2.1 GB/s a channel, far below the DCI links.
  CollectiveRequest all = m.request(CollectiveOp::all_gather, 16.0 * (1LL << 30));
  all.algo = NcclAlgo::ring;
  CollectivePrediction big = m.predict(all);
  const CollectiveCandidate& c = big.candidates.front();
  const double per_channel = all.bytes * 1023 / 1024 / big.channels;
  CHECK(all.bytes / 1024 / big.channels == 1 << 20);
  CHECK(c.window_us == doctest::Approx((per_channel / (2 << 20) - 1) * 2 * 492).epsilon(0.01));
  CHECK(c.window_us > c.link_us);
  CHECK(big.transfer_us == doctest::Approx(c.window_us));
}

TEST_CASE("collective: the calibration overlay moves the prediction it should") {
  Calibration slow = calibration_default();
  slow.efficiency[static_cast<size_t>(LinkKind::NET)] = 0.5;
  Model fast_net("dgx-h100:2"), slow_net("dgx-h100:2", slow);
  CollectiveRequest r = fast_net.request(CollectiveOp::sendrecv, 1 << 30, {0, 8});
  CHECK(slow_net.predict(r).transfer_us == doctest::Approx(fast_net.predict(r).transfer_us * 0.95 / 0.5));
  // NVLink-only collectives do not care.
  CollectiveRequest local = fast_net.request(CollectiveOp::all_reduce, 1 << 30, {0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(slow_net.predict(local).time_us == doctest::Approx(fast_net.predict(local).time_us));
}

}  // namespace topoplan

namespace topoplan {

TEST_CASE("collective: every candidate's terms add up to its time (collective --why)") {
  Calibration cal = calibration_default();
  cal.latency_us[static_cast<size_t>(LinkKind::NET)] = 7;
  const std::string two_sites = (test::data_dir() / "clusters" / "two-site-h100.json").string();
  for (const std::string& spec : {std::string("dgx-h100:2"), std::string("dgx-a100:2"), std::string("gb200-nvl72:1"),
                                  std::string("pcie-l40s:2"), two_sites}) {
    Model m(spec, cal);
    for (CollectiveOp op :
         {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::alltoall, CollectiveOp::sendrecv})
      for (double bytes : {4096.0, 4.0 * (1 << 20), 1024.0 * (1 << 20)}) {
        CAPTURE(spec);
        CAPTURE(to_string(op));
        CAPTURE(bytes);
        std::vector<int> gpus;
        if (op == CollectiveOp::sendrecv) gpus = {0, static_cast<int>(m.cluster.gpus().size()) - 1};
        Result<CollectivePrediction> p = m.model.predict(m.request(op, bytes, gpus));
        REQUIRE_MESSAGE(p.ok(), p.error());
        for (const CollectiveCandidate& c : p->candidates) {
          CHECK(c.latency_us == doctest::Approx(c.nccl_latency_us + c.overhead_us + c.dci_us));
          CHECK(c.transfer_us == doctest::Approx(std::max({c.link_us, c.cap_us, c.window_us}) + c.fill_us));
          CHECK(c.time_us == doctest::Approx(c.latency_us + c.transfer_us));
          CHECK(c.overhead_us >= cal.launch_us);
          if (c.has_link) CHECK(c.link_GBps > 0);
        }
        // The per-class latency lands on calls whose busiest link is a NIC.
        const CollectiveCandidate& best = p->candidates.front();
        if (best.has_link && m.cluster.link(best.link_edge).kind == LinkKind::NET)
          CHECK(best.overhead_us == doctest::Approx(cal.launch_us + 7));
      }
  }
}

TEST_CASE("collective --why: the chosen pair beside the runner-up, and what bounds each") {
  auto r = test::run_topoplan("collective --cluster dgx-h100:2 --op all_reduce --size 256MiB --why");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("why nvls_tree/simple (NCCL's tuner picks it; 16 channels, 8 NVLS heads):") != std::string::npos);
  CHECK(r.out.find("nvls_tree/simple (chosen)") != std::string::npos);
  CHECK(r.out.find("(runner-up)") != std::string::npos);
  CHECK(r.out.find("the runner-up loses by ") != std::string::npos);
  CHECK(r.out.find("; bound by the channel cap") != std::string::npos);
  CHECK(r.out.find("NCCL's own estimate (what it picks by)") != std::string::npos);
  // Five Blackwell GPUs: NCCL rates NVLS below the ring, though the links would run it faster.
  r = test::run_topoplan("collective --cluster hgx-b200:1 --gpus 0-4 --op all_reduce --size 1GiB --why");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("why ring/simple (NCCL's tuner picks it; 32 channels, 5 NVLS heads):") != std::string::npos);
  CHECK(r.out.find("faster on these links, but NCCL's own estimate rates it ") != std::string::npos);
  r = test::run_topoplan("collective --cluster dgx-h100:2 --op all_reduce --size 256MiB --json");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["candidates"][0]["terms"]["link_us"].get<double>() > 0);
}

}  // namespace topoplan

namespace topoplan {

// Issue 29's physical ranges: each figure is a bound a fabric sets, not a fitted value.
TEST_CASE("collective: no fill where nothing is forwarded, and rings reach their links") {
  // Two ranks: each sends its own half; nothing waits for a slice to come around.
  Model two("dgx-h100:1");
  CollectiveRequest r = two.request(CollectiveOp::all_gather, 56.0 * (1 << 20), {0, 1});
  r.algo = NcclAlgo::ring;
  r.proto = NcclProto::simple;
  CollectivePrediction p = two.predict(r);
  CHECK(p.candidates.front().fill_us == 0);
  CHECK(p.transfer_us == doctest::Approx(p.candidates.front().link_us));
  // Eight H100: a 256 MiB all_gather runs at the NVLink copy rate (450 GB/s x 0.822 = 370), not
  // two-thirds of it.
  CollectivePrediction ag = two.predict(two.request(CollectiveOp::all_gather, 256.0 * (1 << 20)));
  CHECK(ag.busbw_GBps >= 300);
  CHECK(ag.busbw_GBps <= 450 * 0.822 * 1.001);
  // A chain does fill: the last of 8 hops waits for the root's first slice to come down 6 hops.
  CollectiveRequest b = two.request(CollectiveOp::broadcast, 64.0 * (1 << 20));
  b.proto = NcclProto::simple;
  const CollectiveCandidate c = two.predict(b).candidates.front();
  CHECK(c.fill_us ==
        doctest::Approx(6 * c.link_us * (512 * 1024) / (64.0 * (1 << 20) / two.predict(b).channels)).epsilon(0.01));
}

TEST_CASE("collective: small calls cost NCCL's latency, with no launch term on top") {
  Model m("dgx-h100:1");
  CollectivePrediction p = m.predict(m.request(CollectiveOp::all_reduce, 8));
  CHECK(p.time_us < 25);
  CHECK(p.candidates.front().overhead_us == 0);
  CHECK(p.time_us >= p.candidates.front().nccl_latency_us);
}

TEST_CASE("collective: a non-blocking fabric gives the same all_reduce busbw at any scale") {
  std::vector<double> busbw;
  for (const std::string spec : {"dgx-h100:16", "dgx-h100:32", "dgx-h100:64", "dgx-h100:128"}) {
    Model m(spec);
    busbw.push_back(m.predict(m.request(CollectiveOp::all_reduce, 16.0 * (1LL << 30))).busbw_GBps);
    MESSAGE(spec << ": " << busbw.back() << " GB/s");
  }
  const auto [lo, hi] = std::minmax_element(busbw.begin(), busbw.end());
  CHECK(*hi <= *lo * 1.10);
}

}  // namespace topoplan

namespace topoplan {

TEST_CASE("collective: no bigger message finishes sooner, on any preset at any scale") {
  int sweeps = 0, drops = 0;
  for (const NodeType& type : node_types())
    for (int nodes : {1, 2, 4, 32}) {
      Model m(type.name + ":" + std::to_string(nodes));
      for (CollectiveOp op :
           {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter, CollectiveOp::alltoall}) {
        Result<std::vector<CollectivePrediction>> rows = m.model.sweep(m.request(op, 0), 1024, 16.0 * (1LL << 30));
        REQUIRE_MESSAGE(rows.ok(), rows.error());
        ++sweeps;
        for (size_t i = 1; i < rows->size(); ++i) {
          const CollectivePrediction &a = (*rows)[i - 1], &b = (*rows)[i];
          if (b.time_us >= a.time_us) continue;
          ++drops;
          MESSAGE(type.name << ":" << nodes << " " << to_string(op) << " " << format_bytes(a.bytes) << " "
                            << a.algorithm << "/" << to_string(a.proto) << " " << a.time_us << " us, "
                            << format_bytes(b.bytes) << " " << b.algorithm << "/" << to_string(b.proto) << " "
                            << b.time_us << " us");
        }
      }
    }
  CHECK(sweeps == static_cast<int>(node_types().size()) * 16);
  CHECK(drops == 0);
}

}  // namespace topoplan

namespace topoplan {
namespace {

// Eight DGX H100, each on a leaf of its own whose 8 NIC ports share 2 uplink ports (4:1), one to
// each of two spines.
std::string two_spine_recipe(const std::string& routing) {
  const std::filesystem::path file = test::temp_dir("two-spine-" + routing) / "cluster.json";
  std::ofstream(file) << R"({"node": "dgx-h100", "nodes": 8, "fabric": {"kind": "tor", "nodes_per_su": 1,
    "nodes_per_pod": 0, "spines_per_pod": 2, "leaf_oversubscription": 4, "routing": ")"
                      << routing << "\"}}";
  return file.string();
}

}  // namespace

TEST_CASE("collective: hash routing can load one uplink port past its share, and the call is then slower") {
  Model hash(two_spine_recipe("hash")), fluid(two_spine_recipe("adaptive"));
  CHECK(hash.cluster.routing.mode == Routing::hash);
  // Two hosts on leaves of their own, each leaf with 2 uplink ports (4:1), one to each spine:
  // the connections between them hash onto the ports unevenly, where the even split halves.
  std::vector<int> two_hosts(16);
  std::iota(two_hosts.begin(), two_hosts.end(), 0);
  const double size = 1 << 30;
  CollectivePrediction p = hash.predict(hash.request(CollectiveOp::all_reduce, size, two_hosts));
  CollectivePrediction q = fluid.predict(fluid.request(CollectiveOp::all_reduce, size, two_hosts));
  REQUIRE(p.even_bottleneck);
  CHECK(p.bottleneck.link.find("leaf") == 0);
  CHECK(p.bottleneck.link.find("-> spine") != std::string::npos);
  CHECK(p.bottleneck.bytes > p.even_bottleneck->bytes);
  CHECK(p.even_bottleneck->bytes == doctest::Approx(q.bottleneck.bytes));
  CHECK(!q.even_bottleneck);
  CHECK(p.time_us > q.time_us);
  CHECK(p.candidates.front().even_link_us == doctest::Approx(q.candidates.front().link_us));

  // An all_reduce over all 64 GPUs runs on the hashed loads too, and never beats the even split.
  CHECK(hash.predict(hash.request(CollectiveOp::all_reduce, size)).time_us >=
        fluid.predict(fluid.request(CollectiveOp::all_reduce, size)).time_us);
}

}  // namespace topoplan

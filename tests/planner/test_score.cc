#include "planner/score.h"

#include <doctest/doctest.h>

#include <fstream>

#include "planner/lower_bound.h"
#include "tests/support.h"
#include "topology/node_types.h"

namespace topoplan {
namespace {

struct Scored {
  Cluster cluster;
  JobScore score;
};

Scored score_of(const std::string& cluster, const Job& job, const std::string& layout_text = "") {
  Scored s{test::load_cluster(cluster), {}};
  Router router(s.cluster);
  Result<Layout> layout = layout_text.empty() ? layout_default(s.cluster, job_ranks(job))
                                              : layout_parse(layout_text, "layout", s.cluster, job_ranks(job));
  REQUIRE_MESSAGE(layout.ok(), (layout ? "" : layout.error()));
  Result<JobScore> r = score_job(s.cluster, router, job, *layout);
  REQUIRE_MESSAGE(r.ok(), (r ? "" : r.error()));
  s.score = std::move(*r);
  return s;
}

const ItemScore& item(const JobScore& s, TrafficKind kind, CollectiveOp op) {
  for (const ItemScore& i : s.items)
    if (i.item.kind == kind && i.item.op == op) return i;
  FAIL("no such item");
  return s.items.front();
}

std::vector<const Finding*> findings(const JobScore& s, const std::string& severity) {
  std::vector<const Finding*> out;
  for (const Finding& f : s.findings)
    if (f.severity == severity) out.push_back(&f);
  return out;
}

// TP 8 inside each DGX H100, DP 2 across the two hosts.
Job tp8_dp2() {
  Job j = test::small_job();
  j.parallel.tp = j.parallel.expert_tp = 8;
  j.parallel.pp = 1;
  return j;
}

}  // namespace

TEST_CASE("score: TP inside the NVLink domain, the score adds up") {
  Scored s = score_of("dgx-h100:2", tp8_dp2());
  const JobScore& r = s.score;
  CHECK(r.ranks == 16);
  CHECK(findings(r, "critical").empty());
  const ItemScore& ag = item(r, TrafficKind::tp, CollectiveOp::all_gather);
  CHECK(ag.groups == 2);
  // The two TP groups share no link: contention changes nothing.
  CHECK(ag.contended_us == doctest::Approx(ag.alone_us));
  CHECK(ag.time_us == doctest::Approx(ag.item.calls * ag.contended_us));
  double exposed = 0, time = 0;
  for (const ItemScore& i : r.items) {
    CHECK(i.exposed_us <= i.time_us * (1 + 1e-12));
    exposed += i.exposed_us;
    time += i.time_us;
  }
  CHECK(r.exposed_comm_s == doctest::Approx(exposed / 1e6));
  CHECK(r.comm_s == doctest::Approx(time / 1e6));
  CHECK(r.step_s == doctest::Approx(r.compute_s + r.exposed_comm_s));
  // TP's forward collectives hide behind nothing.
  CHECK(r.by_kind[static_cast<size_t>(TrafficKind::tp)].exposed_s > 0);
  REQUIRE_FALSE(r.links.empty());
  // Peak, then utilization, highest first, then the edge: a total order.
  for (size_t i = 1; i < r.links.size(); ++i) {
    const LinkUse &a = r.links[i - 1], &b = r.links[i];
    CHECK(a.peak >= b.peak);
    if (a.peak == b.peak) CHECK(a.utilization >= b.utilization);
    if (a.peak == b.peak && a.utilization == b.utilization) CHECK(a.edge < b.edge);
  }
  for (const LinkUse& u : r.links) {
    CHECK(u.peak >= u.utilization);
    CHECK(u.peak <= 1 + 1e-9);
  }
}

TEST_CASE("score: a TP group split over two hosts is a critical finding and costs more") {
  // Large enough activations (4 x 8192 x 1024 x 2 bytes = 64 MiB) that bandwidth, not latency, sets
  // the TP time.
  Job job = tp8_dp2();
  job.training.micro_batch = 4;
  job.training.seq_length = 8192;
  Scored good = score_of("dgx-h100:2", job);
  // Rank r on host r % 2: every TP group has four GPUs on each host.
  std::string layout;
  for (int r = 0; r < 16; ++r) layout += (r % 2 ? "h002\n" : "h001\n");
  Scored bad = score_of("dgx-h100:2", job, layout);
  // One finding for both split groups, counted by the groups it is about.
  std::vector<const Finding*> crit = findings(bad.score, "critical");
  REQUIRE(crit.size() == 1);
  CHECK(crit[0]->kind == "tp");
  CHECK(crit[0]->group == "tp");
  CHECK(crit[0]->index == 0);
  CHECK(crit[0]->groups == std::vector<int>{0, 1});
  CHECK(crit[0]->ranks == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(crit[0]->hosts == std::vector<int>{0, 1});
  CHECK(crit[0]->message ==
        "2 of the 2 TP groups span NVLink domains (groups 0-1); TP group 0 (ranks 0-7) spans h001 and h002: its "
        "all-gathers cross NET, slowest at h001/nic0 -> leaf0 (50 GB/s), instead of NVLink (450 GB/s)");
  REQUIRE(crit[0]->has_link);
  CHECK(bad.cluster.link(crit[0]->link).kind == LinkKind::NET);
  // What fixing it saves: the TP collectives at their best case, the rest as they are; no more
  // than the layout's excess over its lower bound, and about what the good layout saves.
  REQUIRE(bad.score.lower_bound_s);
  CHECK(crit[0]->cost_per_step_s > 0);
  CHECK(crit[0]->cost_per_step_s <= bad.score.exposed_comm_s - *bad.score.lower_bound_s + 1e-9);
  CHECK(crit[0]->cost_per_step_s ==
        doctest::Approx(bad.score.exposed_comm_s - good.score.exposed_comm_s).epsilon(0.05));
  // Four GPUs a host send through four 400G NICs (4 x 47.5 GB/s) instead of NVLink (360 GB/s each).
  CHECK(bad.score.by_kind[0].time_s > 1.5 * good.score.by_kind[0].time_s);
  CHECK(bad.score.exposed_comm_s > good.score.exposed_comm_s);
}

TEST_CASE("score: GPUs sharing a NIC slow each other's data-parallel traffic") {
  // pcie-l40s: 8 GPUs, 4 NICs, so DP groups of local GPUs 0 and 1 share NIC 0.
  Scored shared = score_of("pcie-l40s:2", tp8_dp2());
  const ItemScore& rs = item(shared.score, TrafficKind::dp, CollectiveOp::reduce_scatter);
  CHECK(rs.groups == 8);
  CHECK(rs.contended_us > 1.7 * rs.alone_us);
  CHECK(rs.contended_us < 2.0 * rs.alone_us);
  CHECK(rs.hot_edge_groups == 2);
  bool reported = false;
  for (const Finding& f : shared.score.findings)
    reported |= f.kind == "dp" && f.message.find("carries 2 groups at once") != std::string::npos;
  CHECK(reported);
  // One NIC per GPU: the same groups do not meet.
  Scored own = score_of("dgx-h100:2", tp8_dp2());
  const ItemScore& rs2 = item(own.score, TrafficKind::dp, CollectiveOp::reduce_scatter);
  CHECK(rs2.contended_us == doctest::Approx(rs2.alone_us));
}

TEST_CASE("score: expert all-to-all over two hosts reports the senders into one NIC") {
  Job j = test::small_job();
  j.parallel.tp = j.parallel.expert_tp = 1;
  j.parallel.sequence_parallel = false;
  j.parallel.pp = 1;
  j.parallel.dp = 16;
  j.parallel.ep = 16;
  j.training.global_batch = 16;
  j.model.moe.experts = 16;
  j.model.moe.top_k = 2;
  j.model.moe.ffn_hidden = 1024;
  Scored s = score_of("dgx-h100:2", j);
  const ItemScore& a2a = item(s.score, TrafficKind::ep, CollectiveOp::alltoall);
  CHECK(a2a.groups == 1);
  bool incast = false;
  for (const Finding& f : s.score.findings)
    incast |= f.kind == "ep" && f.message.starts_with("EP all-to-all: 8 senders target h00");
  CHECK(incast);
}

TEST_CASE("score: pipeline traffic across a DCI is a finding, data-parallel traffic is not") {
  auto dir = test::temp_dir("score-dci");
  const std::string path = (dir / "two-site.json").string();
  std::ofstream(path) << R"({"name": "two-site", "node": "dgx-h100", "nodes": 4,
    "sites": [{"name": "east", "nodes": 2}, {"name": "west", "nodes": 2}],
    "dci": {"links": 2, "link_rate": "400Gbps", "length_km": 100}})";
  Job pp = tp8_dp2();
  pp.parallel.pp = 4;
  pp.parallel.dp = 1;
  Scored s = score_of(path, pp);
  const ItemScore& p2p = item(s.score, TrafficKind::pp, CollectiveOp::sendrecv);
  CHECK(p2p.groups == 24);   // 8 pipelines x 3 neighbouring pairs
  CHECK(p2p.dci_us >= 490);  // 100 km of fibre at 4.9 us/km
  const Finding* dci = nullptr;
  for (const Finding& f : s.score.findings)
    if (f.message.find("crosses the DCI") != std::string::npos) dci = &f;
  REQUIRE(dci != nullptr);
  CHECK(dci->kind == "pp");
  CHECK(dci->message.starts_with("pp traffic of 8 of 24 groups crosses the DCI between east and west: +"));

  Job dp = tp8_dp2();
  dp.parallel.dp = 4;
  dp.training.global_batch = 16;
  Scored d = score_of(path, dp);
  for (const Finding& f : d.score.findings) CHECK(f.message.find("crosses the DCI") == std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("score: the layout must place the job's ranks") {
  Cluster c = test::load_cluster("dgx-h100:2");
  Router router(c);
  Layout l = *layout_default(c, 8);
  CHECK(score_job(c, router, tp8_dp2(), l).error() == "default: the layout places 8 ranks, the job has 16");
}

}  // namespace topoplan

namespace topoplan {

namespace {

// Issue 9's case: llama3-70b (TP8 PP4 DP4, overlap off, no virtual stages) on 16 hosts of the
// three-tier cluster (pods of 128 hosts, 7:1 above the pods).
struct Fragmented {
  Cluster cluster = test::load_cluster((test::data_dir() / "clusters" / "threetier-h100.json").string());
  Router router{cluster};
  Job job;
  Fragmented() {
    Result<Job> j = job_load((test::data_dir() / "jobs" / "llama3-70b.json").string());
    REQUIRE(j.ok());
    job = *j;
    job.parallel.overlap_grad_reduce = job.parallel.overlap_param_gather = false;
    job.parallel.virtual_pipeline_stages = 1;
  }
  // Host names in rank order, each repeated for its 8 GPUs.
  double exposed(const std::vector<int>& hosts, FabricMode fabric) {
    std::string text;
    for (int h : hosts)
      for (int k = 0; k < 8; ++k) text += cluster.hosts()[static_cast<size_t>(h)].name + "\n";
    Result<Layout> layout = layout_parse(text, "layout", cluster, job_ranks(job));
    REQUIRE_MESSAGE(layout.ok(), (layout ? "" : layout.error()));
    ScoreOptions opt;
    opt.fabric = fabric;
    Result<JobScore> s = score_job(cluster, router, job, *layout, opt);
    REQUIRE_MESSAGE(s.ok(), (s ? "" : s.error()));
    return s->exposed_comm_s;
  }
};

}  // namespace

TEST_CASE("score: a shared fabric makes fragmentation cost what it costs") {
  Fragmented f;
  // Four hosts in each of four pods, grouped by pod (DP inside pods, PP across) or interleaved
  // (every DP group spans the four pods).
  std::vector<int> grouped, interleaved, one_pod;
  for (int pod = 0; pod < 4; ++pod)
    for (int i = 0; i < 4; ++i) grouped.push_back(128 * pod + i);
  for (int i = 0; i < 4; ++i)
    for (int pod = 0; pod < 4; ++pod) interleaved.push_back(128 * pod + i);
  for (int i = 0; i < 16; ++i) one_pod.push_back(i);
  const double g_shared = f.exposed(grouped, FabricMode::shared), i_shared = f.exposed(interleaved, FabricMode::shared);
  const double g_idle = f.exposed(grouped, FabricMode::idle), i_idle = f.exposed(interleaved, FabricMode::idle);
  MESSAGE("exposed per step: grouped " << g_shared << " s shared, " << g_idle << " s idle; interleaved " << i_shared
                                       << " s shared, " << i_idle << " s idle");
  // Alone on the cluster, four hosts cannot fill a pod's uplinks: both layouts score the same.
  CHECK(g_idle == doctest::Approx(i_idle).epsilon(1e-9));
  // Shared, each host gets a seventh of its NIC rate out of its pod: DP across pods costs more
  // than PP across pods.
  CHECK(g_shared < 0.8 * i_shared);
  CHECK(g_shared >= g_idle);
  // A job inside one pod never crosses the oversubscribed tier.
  CHECK(f.exposed(one_pod, FabricMode::shared) == doctest::Approx(f.exposed(one_pod, FabricMode::idle)).epsilon(1e-9));
}

}  // namespace topoplan

namespace topoplan {

TEST_CASE("score: on every preset a split TP group names the hop that leaves its domain") {
  for (const NodeType& type : node_types()) {
    CAPTURE(type.name);
    Cluster c = test::load_cluster(type.name + ":2");
    Router router(c);
    // Two scale-up domains; TP pairs with one rank in each.
    std::vector<std::vector<int>> domain_hosts(2);
    for (int h = 0; h < static_cast<int>(c.hosts().size()); ++h) {
      const Device& gpu = c.device(c.hosts()[static_cast<size_t>(h)].gpus.front());
      const int d = gpu.scaleup_domain >= 0 ? gpu.scaleup_domain : h;
      domain_hosts[static_cast<size_t>(d)].push_back(h);
    }
    const int world = static_cast<int>(c.gpus().size());
    std::string layout;
    std::array<size_t, 2> next{};
    for (int r = 0; r < world; ++r) {
      const size_t d = static_cast<size_t>(r % 2);
      const size_t per = c.hosts()[0].gpus.size();
      layout += c.hosts()[static_cast<size_t>(domain_hosts[d][next[d]++ / per])].name + "\n";
    }
    Job j = test::small_job();
    j.parallel.pp = 1;
    j.parallel.dp = world / 2;
    j.training.global_batch = world / 2;
    Result<Layout> l = layout_parse(layout, "split", c, world);
    REQUIRE_MESSAGE(l.ok(), (l ? "" : l.error()));
    Result<JobScore> s = score_job(c, router, j, *l);
    REQUIRE_MESSAGE(s.ok(), (s ? "" : s.error()));
    REQUIRE_FALSE(s->findings.empty());
    const Finding& f = s->findings.front();
    CHECK(f.severity == "critical");
    CHECK(f.ranks == std::vector<int>{0, 1});
    CHECK(f.message.find(" cross NET, slowest at ") != std::string::npos);
    CHECK(f.message.find(" cross NVL") == std::string::npos);
    const bool nvlink = type.nvlink_GBps > 0;
    CHECK(f.message.find(nvlink ? "instead of NVLink (" : "instead of the host's PCIe") != std::string::npos);
    REQUIRE(f.has_link);
    CHECK(c.link(f.link).kind == LinkKind::NET);
    CHECK(f.fix == "put each TP group on one host; topoplan explain --group tp:0 shows the moves");
  }
}

TEST_CASE("score: TP larger than the NVLink domain says so, and the fix is a smaller tp") {
  Job j = test::small_job();
  j.parallel.tp = j.parallel.expert_tp = 16;
  j.parallel.pp = 1;
  j.parallel.dp = 1;
  Scored s = score_of("dgx-h100:2", j);
  REQUIRE_FALSE(s.score.findings.empty());
  const Finding& f = s.score.findings.front();
  CHECK(f.message.starts_with("TP group 0 (ranks 0-15) spans h001 and h002: its all-gathers cross NET, slowest at "));
  CHECK(f.message.ends_with(
      "(50 GB/s), instead of NVLink (450 GB/s); TP 16 does not fit in one NVLink domain of 8 GPUs"));
  CHECK(f.fix == "use tp <= 8, or hosts with larger NVLink domains");
  // A default layout whose order puts dp first: the fix is an order string.
  Job d = tp8_dp2();
  d.parallel.tp = 2;
  d.parallel.dp = 8;
  d.parallel.order = "dp-tp-cp-ep-pp";
  Scored o = score_of("dgx-h100:2", d);
  REQUIRE_FALSE(o.score.findings.empty());
  CHECK(o.score.findings.front().fix.starts_with("order tp-dp-cp-ep-pp keeps each tp group on consecutive ranks"));
}

TEST_CASE("score: no finding claims more than the layout's excess over its lower bound") {
  const Cluster c = test::load_cluster((test::data_dir() / "clusters" / "pods-16-h100.json").string());
  Router router(c);
  Result<Job> job = job_load((test::data_dir() / "jobs" / "llama3-70b.json").string());
  REQUIRE(job.ok());
  for (const char* name : {"tp-split.hosts", "pod-interleaved.hosts"}) {
    CAPTURE(name);
    const std::string text = test::read_file(test::source_dir() / "tests" / "golden" / "layouts" / name);
    Result<Layout> l = layout_parse(text, name, c, job_ranks(*job));
    REQUIRE(l.ok());
    Result<JobScore> s = score_job(c, router, *job, *l);
    REQUIRE(s.ok());
    REQUIRE(s->lower_bound_s);
    // The score's bound reuses the state's node cache; alone, with a cache of its own, it is the same.
    Result<LowerBound> alone = lower_bound(c, router, *job, *l, ScoreOptions{});
    REQUIRE(alone.ok());
    CHECK(alone->exposed_s == *s->lower_bound_s);
    const double excess = s->exposed_comm_s - *s->lower_bound_s;
    for (const Finding& f : s->findings) {
      CAPTURE(f.message);
      if (f.severity != "info") CHECK(f.cost_per_step_s <= excess + 1e-9);
    }
  }
}

}  // namespace topoplan

#include <doctest/doctest.h>

#include "tests/support.h"

#include <map>
#include <set>

#include "topology/fabric.h"
#include "topology/load.h"
#include "topology/routing.h"

using namespace topoplan;

namespace {

Cluster build(const std::string& preset) { return test::load_cluster(preset); }

Route route(const Cluster& c, const Router& r, const std::string& a, const std::string& b,
            NicPolicy nic = NicPolicy::rail_aligned) {
  Result<Route> x = r.route(*c.find(a), *c.find(b), {nic});
  REQUIRE_MESSAGE(x, (x ? "" : x.error()));
  return *x;
}

// Edges of a route that leave a device of the given tier going up.
std::vector<Hop> hops_from_tier(const Cluster& c, const Route& r, int tier) {
  std::vector<Hop> out;
  for (const Hop& h : r.hops) {
    const Device& a = c.device(c.source(h.edge));
    const Device& b = c.device(c.target(h.edge));
    if (a.kind == DeviceKind::switch_ && b.kind == DeviceKind::switch_ && a.tier == tier && b.tier > tier)
      out.push_back(h);
  }
  return out;
}

// Eight DGX H100, four per site, joined by eight 400 GB/s DCI links over 100 km.
Cluster two_sites() {
  ClusterSpec spec = *preset_spec_parse("dgx-h100:8");
  spec.sites = {{"siteA", 4}, {"siteB", 4}};
  spec.dci = {8, 50, 100};
  return *cluster_build(spec);
}

double share_sum(const std::vector<Hop>& hops) {
  double s = 0;
  for (const Hop& h : hops) s += h.share;
  return s;
}

}  // namespace

TEST_CASE("routing: path classes inside a DGX H100 follow NCCL") {
  Cluster c = build("dgx-h100:1");
  Router r(c);
  CHECK(route(c, r, "h001/gpu0", "h001/gpu5").path_class == PathClass::NVL);
  CHECK(route(c, r, "h001/gpu0", "h001/gpu5").bw_GBps == doctest::Approx(450));
  CHECK(route(c, r, "h001/gpu0", "h001/nic0").path_class == PathClass::PIX);
  // Other NICs are nearer through a peer GPU over NVLink (PXN) than through the CPU (PHB / SYS).
  CHECK(route(c, r, "h001/gpu0", "h001/nic1").path_class == PathClass::PXN);
  CHECK(route(c, r, "h001/gpu0", "h001/nic4").path_class == PathClass::PXN);
  for (int g = 0; g < 8; ++g) CHECK(c.device(r.nic_for(*c.find("h001/gpu" + std::to_string(g)))).local_index == g);
}

TEST_CASE("routing: DGX A100 pairs two GPUs and two NICs per PCIe switch") {
  Cluster c = build("dgx-a100:1");
  Router r(c);
  CHECK(route(c, r, "h001/gpu1", "h001/nic0").path_class == PathClass::PIX);
  CHECK(route(c, r, "h001/gpu1", "h001/nic2").path_class == PathClass::PXN);
  // Ties between the two PIX NICs go to the rail-aligned one.
  CHECK(c.device(r.nic_for(*c.find("h001/gpu1"))).name == "h001/nic1");
}

TEST_CASE("routing: PCIe-only and Grace nodes") {
  Cluster pcie = build("pcie-l40s:1");
  Router r(pcie);
  CHECK(route(pcie, r, "h001/gpu0", "h001/gpu1").path_class == PathClass::PIX);
  CHECK(route(pcie, r, "h001/gpu0", "h001/gpu2").path_class == PathClass::PHB);
  CHECK(route(pcie, r, "h001/gpu0", "h001/gpu7").path_class == PathClass::SYS);
  CHECK(pcie.device(r.nic_for(*pcie.find("h001/gpu3"))).name == "h001/nic1");

  Cluster nvl = build("gb200-nvl72:2");
  Router rn(nvl);
  // Trays of one rack talk over the rack's NVLink domain; across racks over the network.
  CHECK(route(nvl, rn, "h001/gpu0", "h018/gpu3").path_class == PathClass::NVL);
  CHECK(route(nvl, rn, "h001/gpu0", "h019/gpu0").path_class == PathClass::NET);
  CHECK(route(nvl, rn, "h001/gpu1", "h001/nic1").path_class == PathClass::PXB);
}

TEST_CASE("routing: ECMP over a two-tier fat tree splits evenly over every spine") {
  Cluster c = build("dgx-h100:64");  // 2 SUs: 16 leaves, 8 spines
  Router r(c);
  Route same_leaf = route(c, r, "h001/gpu0", "h002/gpu0");
  CHECK(same_leaf.path_class == PathClass::NET);
  CHECK(same_leaf.paths == 1);
  CHECK(hops_from_tier(c, same_leaf, 1).empty());

  // Per port: a leaf's 32 uplinks are bundles of 4 to each spine, and 4 ports down from each.
  Route cross_su = route(c, r, "h001/gpu0", "h033/gpu0");
  CHECK(cross_su.paths == 32 * 4);
  std::vector<Hop> up = hops_from_tier(c, cross_su, 1);
  REQUIRE(up.size() == 32);
  std::map<std::string, double> per_spine;
  for (const Hop& h : up) {
    CHECK(h.share == doctest::Approx(1.0 / 32));
    per_spine[c.device(c.target(h.edge)).name] += h.share;
  }
  CHECK(per_spine.size() == 8);
  for (auto [spine, share] : per_spine) CHECK(share == doctest::Approx(1.0 / 8));
  CHECK(share_sum(up) == doctest::Approx(1));
  CHECK(cross_su.bw_GBps == doctest::Approx(50));
  CHECK(c.device(c.source(cross_su.bottleneck)).kind != DeviceKind::switch_);

  // Rail-aligned: GPU0 to GPU3 crosses from rail 0 to rail 3 through the spines.
  Route cross_rail = route(c, r, "h001/gpu0", "h002/gpu3");
  CHECK(cross_rail.paths == 32 * 4);
  CHECK(c.device(cross_rail.src_nic).name == "h001/nic0");
  // PXN: hop over NVLink to GPU3 and leave through nic3, staying on rail 3.
  Route pxn = route(c, r, "h001/gpu0", "h002/gpu3", NicPolicy::pxn);
  CHECK(c.device(pxn.src_nic).name == "h001/nic3");
  CHECK(pxn.paths == 1);
}

TEST_CASE("routing: PXN relays through the NIC's own GPU, as NCCL's ncclTopoGetLocalGpu picks it") {
  // DGX A100: each PCIe switch holds two GPUs and two NICs, all PIX to each other. NIC 2k+1 is
  // GPU 2k+1's (ncclTopoGetLocalNet: device index, bit-mirrored over two NICs), so a send to rail
  // 1 from GPU 4 goes over NVLink to GPU 1, not to GPU 0, which would carry two rails.
  // (Before: every odd rail through the even GPU beside it.)
  Cluster c = build("dgx-a100:2");
  Router r(c);
  auto through = [&](const Route& x) {
    std::vector<std::string> gpus;
    for (const Hop& h : x.hops)
      if (c.device(c.target(h.edge)).kind == DeviceKind::gpu) gpus.push_back(c.device(c.target(h.edge)).name);
    return gpus;
  };
  for (int rail = 0; rail < 8; ++rail) {
    CAPTURE(rail);
    Route x = route(c, r, "h001/gpu4", "h002/gpu" + std::to_string(rail), NicPolicy::pxn);
    CHECK(c.device(x.src_nic).name == "h001/nic" + std::to_string(rail));
    const std::vector<std::string> gpus = through(x);
    REQUIRE_FALSE(gpus.empty());
    // GPU 4's own switch holds NICs 4 and 5: no relay, the first GPU on the way is the peer.
    CHECK(gpus.front() == (rail / 2 == 2 ? "h002/gpu" : "h001/gpu") + std::to_string(rail));
  }
}

TEST_CASE("routing: three tiers count spine x core paths and keep the cache per switch pair") {
  ClusterSpec spec = *preset_spec_parse("dgx-h100:256");
  spec.fabric.nodes_per_pod = 64;
  spec.fabric.pod_oversubscription = 7;
  Cluster c = *cluster_build(spec);
  Router r(c);
  Route x = route(c, r, "h001/gpu0", "h200/gpu0");
  // 10 spines up, each to the one core of its group, down to the same spine position, in whole
  // ports: leaf0's 32 uplinks are bundles of 4 (spines 0 and 1) or 3, and a pod's 74 spine
  // uplinks 8 (spines 0 to 3) or 7. A spine carries its bundle's share, split over its uplinks.
  std::vector<Hop> spine_up = hops_from_tier(c, x, 2);
  CHECK(spine_up.size() == 74);
  std::map<std::string, double> per_spine;
  for (const Hop& h : spine_up) per_spine[c.device(c.source(h.edge)).name] += h.share;
  REQUIRE(per_spine.size() == 10);
  CHECK(per_spine["spine0"] == doctest::Approx(4.0 / 32));
  CHECK(per_spine["spine9"] == doctest::Approx(3.0 / 32));
  CHECK(share_sum(spine_up) == doctest::Approx(1));
  // Every GPU on rail 0 of host 1..32 shares leaf0: one cached path set per destination leaf set.
  for (int h = 1; h <= 9; ++h) route(c, r, "h00" + std::to_string(h) + "/gpu0", "h200/gpu0");
  CHECK(r.cached_switch_paths() == 1);
}

TEST_CASE("routing: dual plane splits a flow over both planes") {
  ClusterSpec spec = *preset_spec_parse("dgx-h100:64");
  spec.fabric.planes = 2;
  Cluster c = *cluster_build(spec);
  Router r(c);
  Route x = route(c, r, "h001/gpu0", "h040/gpu0");
  int nic_up = 0;
  for (const Hop& h : x.hops)
    if (c.source(h.edge) == x.src_nic && c.device(c.target(h.edge)).kind == DeviceKind::switch_) {
      ++nic_up;
      CHECK(h.share == doctest::Approx(0.5));
    }
  CHECK(nic_up == 2);
  CHECK(x.bw_GBps == doctest::Approx(50));  // 2 x 25 GB/s ports
}

TEST_CASE("routing: two sites cross a DCI link and pay the propagation") {
  Cluster c = two_sites();
  Router r(c);
  Route x = route(c, r, "h001/gpu0", "h008/gpu0");
  CHECK(x.path_class == PathClass::DCI);
  CHECK(x.latency_us > 100 * kFibreUsPerKm);
  int dci = 0;
  for (const Hop& h : x.hops) dci += c.link(h.edge).kind == LinkKind::DCI;
  CHECK(dci == 8);
  CHECK(route(c, r, "h001/gpu0", "h004/gpu0").path_class == PathClass::NET);
}

namespace {

// What a load adds from fabric_parts must be what route(a, b, {nic, true}) lists: the same hops
// in the same order, the same named segment, the same class.
void check_parts_match(const Cluster& c, const Router& r, NicPolicy nic) {
  int compared = 0;
  const std::vector<VertexId> gpus = c.gpus();
  for (size_t i = 0; i < gpus.size(); i += 5)
    for (size_t j = i % 3; j < gpus.size(); j += 7) {
      Result<std::optional<FabricParts>> parts = r.fabric_parts(gpus[i], gpus[j], nic);
      REQUIRE(parts);
      Result<Route> whole = r.route(gpus[i], gpus[j], {nic, true});
      REQUIRE(whole);
      if (!*parts) {
        CHECK(whole->src_nic == kNoVertex);  // near: route() has the local path
        continue;
      }
      const FabricParts& p = **parts;
      std::vector<Hop> hops;
      for (EdgeId e : p.src_local) hops.push_back({e, 1.0});
      hops.insert(hops.end(), p.fabric.begin(), p.fabric.end());
      for (size_t k = p.dst_local.size(); k-- > 0;) hops.push_back({Cluster::reverse(p.dst_local[k]), 1.0});
      REQUIRE(hops.size() == whole->hops.size());
      for (size_t k = 0; k < hops.size(); ++k) {
        CHECK(hops[k].edge == whole->hops[k].edge);
        CHECK(hops[k].share == whole->hops[k].share);
      }
      CHECK(p.segment == whole->segment);
      CHECK(p.segment_share == whole->segment_share);
      CHECK(p.path_class == whole->path_class);
      ++compared;
    }
  CHECK(compared > 10);
}

}  // namespace

TEST_CASE("routing: two GPUs on one NVSwitch have fabric parts, the route's two NVLink hops") {
  for (const char* spec : {"dgx-h100:2", "gb200-nvl72:1"}) {
    CAPTURE(spec);
    Cluster c = build(spec);
    Router r(c);
    const VertexId a = c.gpus()[0], b = c.gpus()[1];
    Result<std::optional<FabricParts>> parts = r.fabric_parts(a, b, NicPolicy::rail_aligned);
    REQUIRE(parts);
    REQUIRE(*parts);
    Result<Route> whole = r.route(a, b);
    REQUIRE(whole);
    const FabricParts& p = **parts;
    REQUIRE(p.src_local.size() == 2);
    CHECK(p.fabric.empty());
    CHECK(p.dst_local.empty());
    CHECK(p.segment == Route::kNoSegment);
    CHECK(p.path_class == PathClass::NVL);
    REQUIRE(whole->hops.size() == 2);
    CHECK(p.src_local[0] == whole->hops[0].edge);
    CHECK(p.src_local[1] == whole->hops[1].edge);
  }
  // No NVSwitch between them (PCIe): route()'s to search.
  Cluster pcie = build("pcie-l40s:1");
  Router r(pcie);
  Result<std::optional<FabricParts>> parts = r.fabric_parts(pcie.gpus()[0], pcie.gpus()[1], NicPolicy::rail_aligned);
  REQUIRE(parts);
  CHECK_FALSE(*parts);
}

TEST_CASE("routing: fabric parts are the route's hops, for every kind of fabric") {
  SUBCASE("three tiers, segments named") {
    Cluster c = build("dgx-h100:48");
    Router r(c);
    check_parts_match(c, r, NicPolicy::rail_aligned);
    check_parts_match(c, r, NicPolicy::pxn);
  }
  SUBCASE("dual plane: NICs with two uplinks, no segment") {
    ClusterSpec spec = *preset_spec_parse("dgx-h100:16");
    spec.fabric.planes = 2;
    Cluster c = *cluster_build(spec);
    Router r(c);
    check_parts_match(c, r, NicPolicy::rail_aligned);
  }
  SUBCASE("two sites over DCI") {
    Cluster c = two_sites();
    Router r(c);
    check_parts_match(c, r, NicPolicy::rail_aligned);
  }
  SUBCASE("hash routing: the equal-cost set, as Spread::even loads it") {
    Cluster c = build("dgx-h100:16");
    c.routing.mode = Routing::hash;
    Router r(c);
    check_parts_match(c, r, NicPolicy::rail_aligned);
  }
  SUBCASE("an NVL72 rack is one node: no parts inside it") {
    Cluster c = build("gb200-nvl72:2");
    Router r(c);
    check_parts_match(c, r, NicPolicy::rail_aligned);
  }
}

TEST_CASE("routing: only GPUs and NICs are endpoints") {
  Cluster c = build("dgx-h100:2");
  Router r(c);
  Result<Route> x = r.route(*c.find("h001/gpu0"), *c.find("leaf0"));
  REQUIRE_FALSE(x);
  CHECK(x.error().find("'leaf0' is a switch") != std::string::npos);
}

namespace {

// DGX H100 hosts, each on a leaf of its own with `spines` spines above: a fabric small enough to
// follow every connection by hand.
Cluster leaf_per_host(int hosts, int spines, Routing routing) {
  ClusterSpec spec = *preset_spec_parse("dgx-h100:" + std::to_string(hosts));
  spec.fabric.kind = FabricKind::tor;
  spec.fabric.nodes_per_su = 1;
  spec.fabric.nodes_per_pod = 0;
  spec.fabric.spines_per_pod = spines;
  spec.fabric.routing = {routing, "the test"};
  Result<Cluster> c = cluster_build(spec);
  REQUIRE_MESSAGE(c, (c ? "" : c.error()));
  return std::move(*c);
}

// The one switch-to-switch hop a connection takes from a leaf up.
EdgeId uplink(const Cluster& c, const Route& r) {
  std::vector<Hop> up = hops_from_tier(c, r, 1);
  REQUIRE(up.size() == 1);
  CHECK(up[0].share == 1);
  return up[0].edge;
}

Route connection(const Cluster& c, const Router& r, const std::string& a, const std::string& b, uint32_t flow) {
  Result<Route> x = r.route(*c.find(a), *c.find(b), {NicPolicy::rail_aligned, false, flow});
  REQUIRE_MESSAGE(x, (x ? "" : x.error()));
  return *x;
}

}  // namespace

TEST_CASE("routing: hash puts each connection on one path, the same one every time") {
  Cluster c = leaf_per_host(8, 4, Routing::hash);
  Router r(c);
  std::set<VertexId> used;  // spines
  for (uint32_t flow = 0; flow < 16; ++flow) {
    Route x = connection(c, r, "h001/gpu0", "h002/gpu0", flow);
    CHECK(x.bw_GBps == doctest::Approx(50));
    for (const Hop& h : x.hops) CHECK(h.share == 1);
    used.insert(c.target(uplink(c, x)));
    CHECK(uplink(c, connection(c, r, "h001/gpu0", "h002/gpu0", flow)) == uplink(c, x));
  }
  CHECK(used.size() == 4);  // sixteen connections find every spine
  // Without a connection, or under adaptive routing, the route is the equal-cost set: the
  // leaf's 8 uplink ports, 2 to each spine.
  CHECK(hops_from_tier(c, route(c, r, "h001/gpu0", "h002/gpu0"), 1).size() == 8);
  Cluster fluid = leaf_per_host(8, 4, Routing::adaptive);
  Router rf(fluid);
  CHECK(hops_from_tier(fluid, connection(fluid, rf, "h001/gpu0", "h002/gpu0", 0), 1).size() == 8);
}

TEST_CASE("routing: static sends every flow to one destination the same way from each switch (D-mod-k)") {
  Cluster c = leaf_per_host(8, 4, Routing::static_);
  Router r(c);
  // From two sources on different leaves to h001/gpu1 (the 2nd NIC by index: up port 1 of the
  // leaf's 8), every connection climbs to the same spine and comes down the same link.
  std::set<std::string> spines;
  std::set<EdgeId> down;
  for (const std::string src : {"h002/gpu0", "h005/gpu3"})
    for (uint32_t flow = 0; flow < 4; ++flow) {
      Route x = connection(c, r, src, "h001/gpu1", flow);
      spines.insert(c.device(c.target(uplink(c, x))).name);
      for (const Hop& h : x.hops)
        if (c.device(c.source(h.edge)).tier == 2) down.insert(h.edge);
    }
  CHECK(spines.size() == 1);
  CHECK(down.size() == 1);
  // Another destination index, another port.
  CHECK(uplink(c, connection(c, r, "h002/gpu0", "h001/gpu2", 0)) !=
        uplink(c, connection(c, r, "h002/gpu0", "h001/gpu1", 0)));
}

TEST_CASE("routing: the text names the mode and who chose it") {
  CHECK(routing_text(test::load_cluster("hgx-h200:2").routing) ==
        "adaptive (InfiniBand adaptive routing: each flow's bytes split evenly over the equal-cost paths; the default: "
        "the cluster names no routing)");
  CHECK(routing_text(test::load_cluster("dgx-h100:2").routing)
            .ends_with("; dgx-h100 preset: a DGX SuperPOD's InfiniBand, adaptive routing on)"));
  CHECK(routing_text({Routing::hash, "set by the cluster file"}) ==
        "hash (RoCE ECMP: each NCCL connection on one equal-cost path, by a hash of its 5-tuple; set by the cluster "
        "file)");
}

TEST_CASE("routing: a GPU's path to a NIC is the search's, also where an NVSwitch reaches the NIC") {
  // One host: gpu0 and gpu1 on an NVSwitch, gpu0 one PCIe switch from the NIC, and maybe the
  // NVSwitch cabled to the NIC too. The search then meets the NIC through the NVSwitch first, at
  // class NVL, which beats PIX: the shortcut that looks at PCIe switches first must leave such a
  // host to it.
  for (bool cabled : {true, false}) {
    CAPTURE(cabled);
    Cluster c;
    const int h = c.add_host({"a", -1, -1, "", {}, {}});
    auto dev = [&](const std::string& name, DeviceKind kind) { return test::add_device(c, h, name, kind); };
    const VertexId g0 = dev("gpu0", DeviceKind::gpu), g1 = dev("gpu1", DeviceKind::gpu);
    const VertexId nvs = dev("nvswitch0", DeviceKind::nvswitch), pcie = dev("pcie0", DeviceKind::pcie_switch);
    const VertexId nic = dev("nic0", DeviceKind::nic);
    REQUIRE(c.add_link(g0, nvs, LinkKind::NVL, 450, 0.5));
    REQUIRE(c.add_link(g1, nvs, LinkKind::NVL, 450, 0.5));
    if (cabled) REQUIRE(c.add_link(nvs, nic, LinkKind::PCI, 50, 0.5));
    REQUIRE(c.add_link(g0, pcie, LinkKind::PCI, 64, 0.5));
    REQUIRE(c.add_link(pcie, nic, LinkKind::PCI, 64, 0.5));
    REQUIRE(c.finalize());
    Router r(c);
    CHECK(r.gpu_nic_class(g0, nic) == (cabled ? PathClass::NVL : PathClass::PIX));
    Route x = route(c, r, "a/gpu0", "a/nic0");
    REQUIRE(x.hops.size() == 2);
    CHECK(c.target(x.hops[0].edge) == (cabled ? nvs : pcie));
    CHECK(c.target(x.hops[1].edge) == nic);
  }
}

TEST_CASE("routing: hosts built alike share their local paths, shifted, and are the search's") {
  // A Router copies a host's GPU-NIC paths and PXN relays from the first host built like it. With
  // every host's last NIC uplink down, no host is a copy (a down link disqualifies it), so every
  // path below is searched: the copies must match them hop for hop.
  for (const std::string preset : {"dgx-h100:4", "dgx-a100:4", "gb200-nvl72:1", "hgx-b200:3"}) {
    CAPTURE(preset);
    Cluster c = build(preset);
    DownSet down;
    down.edge.assign(c.num_edges(), false);
    for (const Host& h : c.hosts())
      for (EdgeId e : c.out_edges(h.nics.back()))
        if (c.link(e).kind == LinkKind::NET) down.edge[e] = down.edge[Cluster::reverse(e)] = true;
    Router copied(c), searched(c, down);
    for (const Host& h : c.hosts())
      for (VertexId gpu : h.gpus)
        for (VertexId nic : h.nics) {
          CAPTURE(c.device(gpu).name);
          CAPTURE(c.device(nic).name);
          CHECK(copied.gpu_nic_class(gpu, nic) == searched.gpu_nic_class(gpu, nic));
          Result<Route> a = copied.route(gpu, nic), b = searched.route(gpu, nic);
          REQUIRE(a);
          REQUIRE(b);
          CHECK(a->hops == b->hops);
          CHECK(a->bw_GBps == b->bw_GBps);
          CHECK(a->latency_us == b->latency_us);
        }
  }
}

TEST_CASE("routing: a host that differs from the one before it in a link's rate is searched") {
  // Two hosts of one node type, each GPU two PCIe switches from its NIC by two ways (PXB): by
  // switch 1 at 64 GB/s or by switch 2 at 32 GB/s on the first host, the rates the other way
  // round on the second. Each host's path takes its own faster way; a copy of the first host's
  // would take switch 1 on both.
  Cluster c;
  for (const char* name : {"a", "b"}) {
    const int h = c.add_host({name, -1, -1, "box", {}, {}});
    auto dev = [&](const std::string& dev_name, DeviceKind kind) { return test::add_device(c, h, dev_name, kind); };
    const VertexId gpu = dev("gpu0", DeviceKind::gpu), one = dev("pcie1", DeviceKind::pcie_switch),
                   two = dev("pcie2", DeviceKind::pcie_switch), last = dev("pcie3", DeviceKind::pcie_switch),
                   nic = dev("nic0", DeviceKind::nic);
    const bool first = std::string(name) == "a";
    REQUIRE(c.add_link(gpu, one, LinkKind::PCI, first ? 64 : 16, 0.5));
    REQUIRE(c.add_link(gpu, two, LinkKind::PCI, 32, 0.5));
    REQUIRE(c.add_link(one, last, LinkKind::PCI, 64, 0.5));
    REQUIRE(c.add_link(two, last, LinkKind::PCI, 64, 0.5));
    REQUIRE(c.add_link(last, nic, LinkKind::PCI, 64, 0.5));
  }
  test::add_leaf(c, {"a/nic0", "b/nic0"});
  REQUIRE(c.finalize());
  Router r(c);
  const Route a = route(c, r, "a/gpu0", "a/nic0"), b = route(c, r, "b/gpu0", "b/nic0");
  REQUIRE(a.hops.size() == 3);
  REQUIRE(b.hops.size() == 3);
  CHECK(c.device(c.target(a.hops[0].edge)).name == "a/pcie1");
  CHECK(a.bw_GBps == 64);
  CHECK(c.device(c.target(b.hops[0].edge)).name == "b/pcie2");
  CHECK(b.bw_GBps == 32);
}

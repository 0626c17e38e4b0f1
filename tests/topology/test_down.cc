#include "topology/down.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "tests/support.h"
#include "topology/routing.h"

using namespace topoplan;

namespace {

bool uses(const Route& r, const Router& router, EdgeId e) {
  for (const Hop& h : r.hops)
    if (h.edge == e) return true;
  if (r.segment != Route::kNoSegment)
    for (const Hop& h : *router.segment(r.segment).hops)
      if (h.edge == e) return true;
  return false;
}

EdgeId edge(const Cluster& c, const std::string& a, const std::string& b) {
  for (EdgeId e : c.out_edges(*c.find(a)))
    if (c.device(c.target(e)).name == b) return e;
  FAIL("no link " << a << " -> " << b);
  return 0;
}

}  // namespace

TEST_CASE("down: names of hosts, devices and links") {
  Cluster c = test::load_cluster("dgx-h100:64");
  Result<DownSet> d = down_parse(c, {"h003", "h010/gpu2", " h011/nic3 ", "leaf0 <-> spine1", "leaf2->spine0"});
  REQUIRE_MESSAGE(d.ok(), (d ? "" : d.error()));
  CHECK(d->names.size() == 5);
  CHECK(d->device_down(*c.find("h003/gpu7")));
  CHECK(d->device_down(*c.find("h003/nic0")));
  CHECK(d->gpus_up(c, 9).size() == 7);
  CHECK_FALSE(d->host_whole(c, 10));  // its nic3 is down
  CHECK(d->host_whole(c, 11));
  const EdgeId e = edge(c, "leaf0", "spine1");
  CHECK(d->edge_down(e));
  CHECK(d->edge_down(Cluster::reverse(e)));
  CHECK(d->edge_down(edge(c, "spine0", "leaf2")));  // a cable goes down both ways

  auto error = [&](std::vector<std::string> names) {
    Result<DownSet> r = down_parse(c, names);
    REQUIRE_FALSE(r.ok());
    return r.error();
  };
  CHECK(error({"h0003"}) == "--exclude: no host, device or link 'h0003', did you mean 'h003'?");
  CHECK(error({"h003/gpu9"}) == "--exclude: no host, device or link 'h003/gpu9', did you mean 'h003/gpu0'?");
  CHECK(error({"leaf0 <-> leaf1"}) == "--exclude: 'leaf0' and 'leaf1' are not linked");
  CHECK(error({"leaf0 <-> spine99"}) == "--exclude: no host, device or link 'spine99', did you mean 'spine0'?");
  CHECK(error({""}) == "--exclude: empty name in the list");
}

TEST_CASE("down: routes avoid what is down") {
  Cluster c = test::load_cluster("dgx-h100:64");
  // Hosts in different scalable units cross the spines.
  const VertexId a = *c.find("h001/gpu0"), b = *c.find("h040/gpu0"), a2 = *c.find("h002/gpu0");
  Router whole(c);
  const EdgeId up = edge(c, "leaf0", "spine1");
  Result<Route> before = whole.route(a2, b, {NicPolicy::rail_aligned, true});
  REQUIRE(before.ok());
  CHECK(uses(*before, whole, up));
  Result<DownSet> d = down_parse(c, {"leaf0 <-> spine1", "h001/nic0"});
  REQUIRE(d.ok());
  Router avoiding(c, *d);
  // GPU 0 has lost its own NIC: it leaves through another one, never through nic0.
  const VertexId nic = avoiding.nic_for(a);
  CHECK(nic != *c.find("h001/nic0"));
  Result<Route> after = avoiding.route(a2, b, {NicPolicy::rail_aligned, true});
  REQUIRE(after.ok());
  CHECK_FALSE(uses(*after, avoiding, up));
  Result<Route> around = avoiding.route(a, b, {NicPolicy::rail_aligned, true});
  REQUIRE(around.ok());
  for (EdgeId e : c.out_edges(*c.find("h001/nic0"))) CHECK_FALSE(uses(*around, avoiding, e));
}

TEST_CASE("down: every name topo show --names lists is one --exclude takes") {
  const Cluster c = test::load_cluster("dgx-h100:2");
  const DownNames names = down_names(c);
  CHECK(names.hosts == std::vector<std::string>{"h001", "h002"});
  CHECK(names.devices.size() == c.num_devices());
  // Each cable once, however many ports: leaf0 reaches every spine by one bundle, so one entry.
  CHECK(std::count(names.links.begin(), names.links.end(), "h001/nic0<->leaf0") == 1);
  for (const std::string& link : names.links) CHECK(link.find("<->") != std::string::npos);
  std::vector<std::string> all = names.hosts;
  for (const auto& [kind, name] : names.devices) all.push_back(name);
  all.insert(all.end(), names.links.begin(), names.links.end());
  for (const std::string& name : all) {
    Result<DownSet> d = down_parse(c, {name});
    CHECK_MESSAGE(d.ok(), name);
  }
}

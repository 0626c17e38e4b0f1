#include "cost/link_share.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "tests/support.h"
#include "topology/fabric.h"
#include "topology/locality.h"

using namespace topoplan;

namespace {

Cluster pods(int nodes, double pod_oversubscription, double leaf_oversubscription = 1) {
  ClusterSpec spec;
  spec.name = "pods";
  spec.node = *node_type_named("dgx-h100");
  spec.nodes = nodes;
  spec.fabric.nodes_per_pod = 128;
  spec.fabric.pod_oversubscription = pod_oversubscription;
  spec.fabric.leaf_oversubscription = leaf_oversubscription;
  Result<Cluster> c = cluster_build(spec);
  REQUIRE_MESSAGE(c.ok(), (c ? "" : c.error()));
  return std::move(*c);
}

std::vector<double> weights(const Cluster& c, std::initializer_list<int> hosts) {
  std::vector<double> w(c.hosts().size(), 0);
  for (int h : hosts) w[static_cast<size_t>(h)] = 1;
  return w;
}

// What the job gets across all links of one level leaving `host`'s pod (or leaf), one direction.
double share_capacity(const Cluster& c, const LinkShare& s, int level, bool up) {
  double total = 0;
  for (EdgeId e = 0; e < c.num_edges(); ++e) {
    if (link_level(c, e) != level) continue;
    const bool climbs = c.device(c.target(e)).tier > c.device(c.source(e)).tier;
    if (climbs == up && s.at(e) < 1) total += c.link(e).bw_GBps * s.at(e);
  }
  return total;
}

std::string background_error(const Cluster& c, const std::string& text) {
  Result<Background> bg = background_from_json(nlohmann::json::parse(text), "bg.json", c);
  REQUIRE_FALSE(bg.ok());
  return bg.error();
}

}  // namespace

TEST_CASE("link share: a 7:1 tier gives each host its NIC rate / 7") {
  Cluster c = pods(256, 7);
  // Four hosts of pod 0 and four of pod 1.
  LinkShare s = LinkShare::fair(c, weights(c, {0, 1, 2, 3, 128, 129, 130, 131}));
  const double nic_GBps = 400.0 / 8;
  // Up from both pods' spines to the cores: 8 hosts x 8 NICs x 50 GB/s / 7, in whole ports: a
  // pod's 1024 leaf uplinks over 7 are 147 spine uplinks, 6.97:1.
  CHECK(share_capacity(c, s, 3, true) == doctest::Approx(8 * 8 * nic_GBps * 147 / 1024));
  // Leaf uplinks (1:1): exactly the job's NICs, so a non-blocking tier never binds.
  CHECK(share_capacity(c, s, 2, true) == doctest::Approx(8 * 8 * nic_GBps));
  // Host-internal links and the job's own NIC cables stay whole.
  for (EdgeId e = 0; e < c.num_edges(); ++e)
    if (link_level(c, e) <= 1) REQUIRE(s.at(e) == 1);
  CHECK(LinkShare{}.at(0) == 1);
  CHECK(LinkShare{}.whole());
}

TEST_CASE("link share: a whole cluster owns every link") {
  Cluster c = pods(256, 7);
  std::vector<double> all(c.hosts().size(), 1);
  LinkShare s = LinkShare::fair(c, all);
  for (EdgeId e = 0; e < c.num_edges(); ++e) REQUIRE(s.at(e) == doctest::Approx(1));
}

TEST_CASE("link share: background load replaces the assumption where it says") {
  Cluster c = pods(256, 7);
  Result<Background> bg =
      background_from_json(nlohmann::json::parse(R"({"format": "topoplan-background", "tiers": {"core": 0.75},
                                "links": {"leaf0 <-> spine0": 0.5, "leaf1 -> spine1": 0.25}})"),
                           "bg.json", c);
  REQUIRE_MESSAGE(bg.ok(), (bg ? "" : bg.error()));
  const std::vector<double> w = weights(c, {0, 1});
  LinkShare idle = link_share_make(c, FabricMode::idle, w, &*bg);
  auto edge = [&](const std::string& a, const std::string& b) {
    for (EdgeId e : c.out_edges(*c.find(a)))
      if (c.device(c.target(e)).name == b) return e;
    FAIL("no link");
    return EdgeId{0};
  };
  CHECK(idle.at(edge("leaf0", "spine0")) == 0.5);
  CHECK(idle.at(edge("spine0", "leaf0")) == 0.5);
  CHECK(idle.at(edge("leaf1", "spine1")) == 0.75);
  CHECK(idle.at(edge("spine1", "leaf1")) == 1);
  CHECK(idle.at(edge("leaf2", "spine2")) == 1);
  for (EdgeId e = 0; e < c.num_edges(); ++e)
    if (link_tier(c, e) == "core") REQUIRE(idle.at(e) == 0.25);
  // On a shared fabric, links the background does not name keep their fair share.
  LinkShare shared = link_share_make(c, FabricMode::shared, w, &*bg);
  CHECK(shared.at(edge("leaf2", "spine2")) < 1);
  CHECK(shared.at(edge("leaf0", "spine0")) == 0.5);
}

TEST_CASE("link share: malformed background files name the key") {
  Cluster c = pods(256, 7);
  CHECK(background_error(c, R"({"format": "other", "tiers": {}})") ==
        "bg.json: format: expected \"topoplan-background\"");
  CHECK(background_error(c, R"({})") == "bg.json: expected \"tiers\" or \"links\" (or both)");
  CHECK(background_error(c, R"({"tiers": [0.5]})") == "bg.json: tiers: expected an object of tier: utilization");
  CHECK(background_error(c, R"({"tiers": {"spin": 0.5}})") ==
        "bg.json: tiers.spin: no such tier in this cluster, did you mean 'spine'? (tiers: core, leaf, spine)");
  CHECK(background_error(c, R"({"tiers": {"spine": 1}})") ==
        "bg.json: tiers.spine: expected a utilization in [0, 1), got 1");
  CHECK(background_error(c, R"({"tiers": {"spine": -0.1}})") ==
        "bg.json: tiers.spine: expected a utilization in [0, 1), got -0.1");
  CHECK(background_error(c, R"({"tiers": {"spine": "half"}})") ==
        "bg.json: tiers.spine: expected a utilization in [0, 1), got \"half\"");
  CHECK(background_error(c, R"({"links": {"leaf0 spine0": 0.5}})") ==
        "bg.json: links[\"leaf0 spine0\"]: expected \"a -> b\" (one direction) or \"a <-> b\" (both)");
  CHECK(background_error(c, R"({"links": {"leaf0 -> spine999": 0.5}})") ==
        "bg.json: links[\"leaf0 -> spine999\"]: no device 'spine999'");
  CHECK(background_error(c, R"({"links": {"leaf0 -> leaf1": 0.5}})") ==
        "bg.json: links[\"leaf0 -> leaf1\"]: 'leaf0' and 'leaf1' are not linked");
  CHECK(background_error(c, R"({"tiers": {}, "extra": 1})") == "bg.json: unknown key 'extra'");
  Result<Background> missing = background_load("/nonexistent/bg.json", c);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().find("/nonexistent/bg.json") == 0);
}

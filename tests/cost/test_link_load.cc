#include "cost/link_load.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "cost/calibration.h"
#include "tests/support.h"

using namespace topoplan;

namespace {

// Both loads hold the same links; how many of them differ in bytes or busy time, to the bit.
int links_differing(const LinkLoad& x, const LinkLoad& y) {
  std::vector<EdgeId> a = x.loaded(), b = y.loaded();
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  REQUIRE(a == b);
  int differ = 0;
  for (EdgeId e : a) differ += x.bytes(e) != y.bytes(e) || x.busy_us(e) != y.busy_us(e);
  return differ;
}

}  // namespace

TEST_CASE("link load: spread part by part, every link's bytes and busy time are the same to the bit") {
  // Three tiers (adaptive routing), RoCE (hash routing, also split evenly) and two sites: random
  // transfers between GPUs of many leaves and pods, added and taken off in batches, the loads
  // read between batches so that segments spread onto links already loaded.
  for (const char* name : {"threetier-h100", "llama3-roce", "two-site-h100"}) {
    CAPTURE(name);
    const Cluster c = test::load_cluster((test::data_dir() / "clusters" / (std::string(name) + ".json")).string());
    const Router r(c);
    const Calibration& cal = calibration_default();
    for (Spread spread : {Spread::routed, Spread::even}) {
      LinkLoad ordered(r, cal, nullptr, spread), any(r, cal, nullptr, spread);
      any.any_order();
      std::mt19937 rng(5);
      std::uniform_int_distribution<size_t> gpu(0, c.gpus().size() - 1);
      std::uniform_real_distribution<double> bytes(1, 1e9);
      std::vector<Transfer> last;
      for (int batch = 0; batch < 6; ++batch) {
        std::vector<Transfer> t;
        // Rings over a few hundred GPUs: neighbours share leaves, so segments share parts.
        const size_t first = gpu(rng);
        for (size_t k = 0; k < 300; ++k) {
          const VertexId a = c.gpus()[(first + 7 * k) % c.gpus().size()];
          const VertexId b = c.gpus()[(first + 7 * k + 7 * (1 + rng() % 40)) % c.gpus().size()];
          if (a == b) continue;
          t.push_back({a, b, bytes(rng), FlowMode::copy, rng() % 2 == 0, static_cast<uint32_t>(rng() % 4), 2});
        }
        REQUIRE(ordered.add(t).ok());
        REQUIRE(any.add(t).ok());
        if (batch % 2 == 1) {  // some come back off
          REQUIRE(ordered.remove(last).ok());
          REQUIRE(any.remove(last).ok());
        }
        last = t;
        CHECK(links_differing(ordered, any) == 0);
        const LinkLoad::Peak p = ordered.busiest(), q = any.busiest();
        CHECK(p.edge == q.edge);
        CHECK(p.busy_us == q.busy_us);
        CHECK(p.bytes == q.bytes);
      }
    }
  }
}

TEST_CASE("link load: a link's sums do not depend on what the router routed before") {
  // Segment ids number segments in the order routes first met them; two routers that met them
  // in opposite orders must still give every link the same bytes, to the bit.
  for (const char* name : {"threetier-h100", "llama3-roce"}) {
    CAPTURE(name);
    const Cluster c = test::load_cluster((test::data_dir() / "clusters" / (std::string(name) + ".json")).string());
    const Router fresh(c), used(c);
    const Calibration& cal = calibration_default();
    std::mt19937 rng(11);
    std::uniform_int_distribution<size_t> gpu(0, c.gpus().size() - 1);
    std::uniform_real_distribution<double> bytes(1, 1e9);
    std::vector<Transfer> t;
    while (t.size() < 2000)
      if (const VertexId a = c.gpus()[gpu(rng)], b = c.gpus()[gpu(rng)]; a != b) t.push_back({a, b, bytes(rng)});
    {
      LinkLoad before(used, cal);
      REQUIRE(before.add(std::vector<Transfer>(t.rbegin(), t.rend())).ok());
    }
    for (bool any_order : {false, true}) {
      CAPTURE(any_order);
      LinkLoad a(fresh, cal), b(used, cal);
      if (any_order) {
        a.any_order();
        b.any_order();
      }
      REQUIRE(a.add(t).ok());
      REQUIRE(b.add(t).ok());
      CHECK(links_differing(a, b) == 0);
    }
  }
}

TEST_CASE("link load: loads sharing their rate table time every link as loads with their own") {
  // Two loads on one share, the second taking the first's rates: each link's busy time is the
  // same to the bit as a load's with its own table, before and after the share is swapped (a
  // reshare leaves the shared table alone). Another share, router or calibration is refused.
  const Cluster c = test::load_cluster("dgx-h100:4");
  const Router r(c);
  const Calibration& cal = calibration_default();
  LinkShare half;
  for (EdgeId e = 0; e < c.num_edges(); ++e) half.set(c, e, c.link(e).kind == LinkKind::NET ? 0.5 : 1);
  const LinkShare whole;
  std::vector<Transfer> transfers;
  for (size_t i = 0; i + 8 < c.gpus().size(); i += 3) {
    transfers.push_back({c.gpus()[i], c.gpus()[i + 8], 1e6 * static_cast<double>(i + 1)});
    transfers.push_back({c.gpus()[i], c.gpus()[i + 1], 2e6});
  }
  LinkLoad first(r, cal, &half), second(r, cal, &half), alone(r, cal, &half);
  second.rates_from(first);
  REQUIRE(first.add(transfers));
  REQUIRE(second.add(transfers));
  REQUIRE(alone.add(transfers));
  CHECK(links_differing(second, alone) == 0);
  second.reshare(&half, &whole);
  alone.reshare(&half, &whole);
  REQUIRE(second.add(transfers));
  REQUIRE(alone.add(transfers));
  CHECK(links_differing(second, alone) == 0);
  LinkLoad more(r, cal, &half);
  REQUIRE(more.add(transfers));
  CHECK(links_differing(first, more) == 0);  // the first's table was not touched by the reshare
  LinkLoad other_share(r, cal, &whole);
  CHECK_THROWS_AS(other_share.rates_from(first), std::logic_error);
  const Router other_router(c);
  LinkLoad other(other_router, cal, &half);
  CHECK_THROWS_AS(other.rates_from(first), std::logic_error);
}

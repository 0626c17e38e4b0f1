// Pattern keeps each group's links, their uses and its busiest link current as groups move; after
// any run of updates it must hold what loading the groups' transfers afresh gives.
#include "planner/pattern.h"

#include <doctest/doctest.h>

#include <random>

#include "cost/calibration.h"
#include "tests/support.h"

using namespace topoplan;

TEST_CASE("pattern: updated groups hold the links and peaks of groups loaded afresh") {
  // Rings of one GPU per host over many leaves and pods (a data-parallel group's shape): most
  // moves swap one member for a GPU elsewhere, a few two members of one ring, every eighth a
  // whole new ring, so both few and many changes against a group's links are tried.
  const Cluster c = test::load_cluster((test::data_dir() / "clusters" / "threetier-h100.json").string());
  const Router r(c);
  const Calibration& cal = calibration_default();
  const size_t groups = 6, members = 96;
  std::mt19937 rng(3);
  std::uniform_int_distribution<size_t> gpu(0, c.gpus().size() - 1);
  auto fresh_ring = [&] {
    std::vector<VertexId> ring;
    while (ring.size() < members)
      if (VertexId v = c.gpus()[gpu(rng)]; std::find(ring.begin(), ring.end(), v) == ring.end()) ring.push_back(v);
    return ring;
  };
  std::vector<std::vector<VertexId>> rings;
  Pattern moved(r, cal, nullptr, groups);
  for (size_t g = 0; g < groups; ++g) {
    rings.push_back(fresh_ring());
    REQUIRE(moved.load(g, ring_of_sends(rings[g], 1e6 * static_cast<double>(g + 1), 2)).ok());
  }
  moved.refresh();
  for (int step = 0; step < 60; ++step) {
    CAPTURE(step);
    const size_t g = rng() % groups;
    if (step % 8 == 7) {
      rings[g] = fresh_ring();
    } else {
      for (int k = 0; k < 1 + step % 2; ++k)
        if (VertexId v = c.gpus()[gpu(rng)]; std::find(rings[g].begin(), rings[g].end(), v) == rings[g].end())
          rings[g][rng() % members] = v;
    }
    REQUIRE(moved.update(g, ring_of_sends(rings[g], 1e6 * static_cast<double>(g + 1), 2)).ok());
    moved.refresh();
    Pattern fresh(r, cal, nullptr, groups);
    for (size_t h = 0; h < groups; ++h)
      REQUIRE(fresh.load(h, ring_of_sends(rings[h], 1e6 * static_cast<double>(h + 1), 2)).ok());
    fresh.refresh();
    for (size_t h = 0; h < groups; ++h) {
      CAPTURE(h);
      CHECK(moved.touched(h).edges == fresh.touched(h).edges);
      CHECK(moved.touched(h).segments == fresh.touched(h).segments);
      // Loads added and taken off differ from fresh sums in the last bits, so of two links equal
      // but for those bits either may be named: the one named must be as busy as the peak.
      CHECK(moved.peak(h).busy_us == doctest::Approx(fresh.peak(h).busy_us).epsilon(1e-12));
      CHECK(fresh.total().busy_us(moved.peak(h).edge) == doctest::Approx(fresh.peak(h).busy_us).epsilon(1e-12));
    }
  }
}

#include "planner/score_tables.h"

#include <doctest/doctest.h>

#include "tests/scored_small_job.h"
#include "tests/support.h"

namespace topoplan {
namespace {

TEST_CASE("score_tables: a header then one row per kind, per item and per hottest bundle") {
  const auto scored = test::scored_small_job("dgx-h100:4");  // tp 2, pp 2, dp 2 on 8 GPUs
  const Cluster& c = scored->cluster;
  const JobScore* s = &scored->score;

  const Rows kinds = kind_rows(*s);
  REQUIRE(kinds.size() == 1 + kTrafficKinds);
  CHECK(kinds[0] == std::vector<std::string>{"kind", "alone", "contended", "exposed"});
  CHECK(kinds[1][0] == std::string(to_string(static_cast<TrafficKind>(0))));

  const Rows items = item_rows(*s);
  CHECK(items.size() == s->items.size());
  for (const std::vector<std::string>& row : items) CHECK(row.size() == 9);

  const Rows links = link_rows(c, *s, 3);
  CHECK(links.size() <= 4);
  CHECK(links[0][0] == "link");

  const nlohmann::json j = score_tables_json(c, *s, 3);
  CHECK(j["kinds"] == nlohmann::json(kinds));
  CHECK(j["links"] == nlohmann::json(links));
  CHECK(j["memory"] == nlohmann::json(memory_rows(*s)));
  CHECK(j["findings"].size() == s->findings.size());
}

TEST_CASE("memory_rows: one row per stage, consecutive stages that hold the same sharing one") {
  JobScore s;
  CHECK(memory_rows(s).empty());  // no estimate, no table
  s.memory.capacity_bytes = 80.0 * (1ull << 30);
  auto stage = [](double activations_gib, double in_flight) {
    StageMemory m;
    m.weights_bytes = 4.0 * (1ull << 30);
    m.activations_bytes = activations_gib * (1ull << 30);
    m.in_flight = in_flight;
    return m;
  };
  s.memory.stages = {stage(40, 4), stage(30, 3), stage(30, 3), stage(30, 3), stage(10, 1), stage(30, 3)};
  const Rows rows = memory_rows(s);
  REQUIRE(rows.size() == 5);
  CHECK(rows[0] == std::vector<std::string>{"stage", "weights", "gradients", "optimizer", "activations", "in flight",
                                            "total", "of the GPU"});
  CHECK(rows[1][0] == "0");
  CHECK(rows[1][6] == "44 GiB");
  CHECK(rows[1][7] == "55%");
  CHECK(rows[2][0] == "1-3");  // the same cells, one row
  CHECK(rows[3][0] == "4");
  CHECK(rows[4][0] == "5");  // the same as 1-3, but not next to them
  CHECK(rows[4][4] == "30 GiB");
}

TEST_CASE("bundle_ports: the parallel links from one device to another") {
  const Cluster c = test::load_cluster("dgx-h100:2");
  for (EdgeId e = 0; e < c.num_edges(); ++e) {
    const size_t ports = bundle_ports(c, e);
    CHECK(ports >= 1);
    size_t same = 0;
    for (EdgeId x = 0; x < c.num_edges(); ++x) same += c.source(x) == c.source(e) && c.target(x) == c.target(e);
    CHECK(ports == same);
  }
}

}  // namespace
}  // namespace topoplan

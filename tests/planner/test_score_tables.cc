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
  CHECK(j["findings"].size() == s->findings.size());
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

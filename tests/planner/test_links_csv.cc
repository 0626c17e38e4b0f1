#include "planner/links_csv.h"

#include <doctest/doctest.h>

#include <sstream>

#include "tests/scored_small_job.h"
#include "tests/support.h"

namespace topoplan {
namespace {

TEST_CASE("links_csv: a header, then one row per loaded link with both directions") {
  const auto scored = test::scored_small_job("dgx-h100:2");  // tp 2, pp 2, dp 2 on 8 GPUs
  const Cluster& c = scored->cluster;
  const JobScore* s = &scored->score;
  std::istringstream csv(links_csv(c, *s));
  std::string line;
  REQUIRE(std::getline(csv, line));
  CHECK(line.rfind("link,from,to,kind,tier,bw_GBps,bytes_forward,bytes_reverse,", 0) == 0);
  size_t rows = 0;
  while (std::getline(csv, line)) {
    ++rows;
    CHECK(std::count(line.begin(), line.end(), ',') == 11);
  }
  CHECK(rows > 0);
  CHECK(rows <= s->links.size());
}

}  // namespace
}  // namespace topoplan

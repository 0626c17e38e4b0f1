#include "planner/links_csv.h"

#include <doctest/doctest.h>

#include <sstream>

#include "tests/support.h"

namespace topoplan {
namespace {

TEST_CASE("links_csv: a header, then one row per loaded link with both directions") {
  const Cluster c = test::load_cluster("dgx-h100:2");
  Router router(c);
  const Job job = test::small_job();
  Result<JobScore> s = score_job(c, router, job, *layout_default(c, job_ranks(job)));
  REQUIRE_MESSAGE(s.ok(), (s ? "" : s.error()));
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

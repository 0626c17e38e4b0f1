#include "observe/observed_dot_load.h"

#include <doctest/doctest.h>

namespace topoplan {
namespace {

TEST_CASE("observed_dot_load: the ratios drawn as ratios, under the job's name") {
  JobScore score;
  score.job = "tiny-8";
  const std::vector<double> ratios = {0, 1.3, kDotBusyUnpredicted};
  const DotLoad load = observed_dot_load(score, ratios);
  CHECK(load.ratio);
  CHECK(load.utilization == ratios);
  CHECK(load.title.starts_with("tiny-8: observed / predicted per link"));
  CHECK(load.highlight_edges.empty());
}

}  // namespace
}  // namespace topoplan

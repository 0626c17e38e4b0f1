#include "tests/scored_small_job.h"

#include <doctest/doctest.h>

#include "tests/support.h"

namespace topoplan::test {

std::unique_ptr<ScoredSmallJob> scored_small_job(const std::string& spec) {
  std::unique_ptr<ScoredSmallJob> s(new ScoredSmallJob{load_cluster(spec)});
  s->job = small_job();
  Result<Layout> layout = layout_default(s->cluster, job_ranks(s->job));
  REQUIRE_MESSAGE(layout.ok(), (layout ? "" : layout.error()));
  s->layout = std::move(*layout);
  Result<JobScore> score = score_job(s->cluster, s->router, s->job, s->layout);
  REQUIRE_MESSAGE(score.ok(), (score ? "" : score.error()));
  s->score = std::move(*score);
  return s;
}

}  // namespace topoplan::test

#include "planner/score_text.h"

#include <doctest/doctest.h>

#include "tests/scored_small_job.h"
#include "tests/support.h"

namespace topoplan {
namespace {

TEST_CASE("score_text: the job's line, the step, the tables and findings; the verdict in one line") {
  const auto scored = test::scored_small_job("dgx-h100:4");  // tp 2, pp 2, dp 2 on 8 GPUs
  const Cluster& c = scored->cluster;
  const JobScore* s = &scored->score;

  const std::string text = score_text(c, "dgx-h100:4", *s);
  CHECK(text.starts_with(s->job + " on dgx-h100:4: "));
  CHECK(text.find("\nrouting: ") != std::string::npos);
  CHECK(text.find("\nMFU ") != std::string::npos);
  CHECK(text.find("\nhottest links (busiest phase first; average over the step):\n") != std::string::npos);
  CHECK(text.find("\nfindings:\n" + findings_text(s->findings, *s)) != std::string::npos);

  const std::string verdict = score_verdict(*s);
  CHECK(verdict.starts_with(s->job + ", layout " + s->layout + ": step "));
  CHECK(verdict.find('\n') == std::string::npos);
  CHECK(verdict.find(", MFU ") != std::string::npos);
}

}  // namespace
}  // namespace topoplan

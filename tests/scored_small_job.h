// small_job() laid out host-major on a preset and scored: what the tests of a score's printers and
// report start from.
#pragma once

#include <memory>
#include <string>

#include "planner/score.h"

namespace topoplan::test {

struct ScoredSmallJob {
  Cluster cluster;
  Router router{cluster};
  Job job;
  Layout layout;
  JobScore score;
};

// The test stops with the scorer's message when it fails. Held by pointer: the router refers to
// the cluster.
std::unique_ptr<ScoredSmallJob> scored_small_job(const std::string& spec);

}  // namespace topoplan::test

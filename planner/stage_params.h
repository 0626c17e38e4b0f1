// The parameters one GPU of a pipeline stage holds, which its data-parallel reductions move, its
// optimizer steps over and its memory keeps.
#pragma once

#include "planner/job.h"

namespace topoplan {

// Dense (reduced over dp-cp) and expert (reduced over expert.dp) parameters per GPU. Embedding on
// the first stage, output layer on the last.
struct StageParams {
  double dense = 0, expert = 0;
  bool operator==(const StageParams&) const = default;
};
StageParams stage_params(const Job& job, const StageLayers& stage, bool first, bool last);

}  // namespace topoplan

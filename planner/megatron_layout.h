// Megatron-Core's --pipeline-model-parallel-layout ("Et*3|t*4|t*4|t*4L" on pp 2 with 2 virtual
// stages each): the layers of every virtual stage, in order. topoplan writes it for a job whose
// first or last stage does not split evenly over its virtual stages, which Megatron's count flags
// refuse (Llama 3 405B: 7 + 14 x 8 + 7 layers, interleaved), and reads it back.
#pragma once

#include <string>
#include <string_view>

#include "base/error.h"
#include "planner/job.h"

namespace topoplan {

// The layout of job_stage_chunks, or "" where Megatron's flags say the same: no virtual stages,
// or first and last stage counts divisible by them.
std::string megatron_pipeline_layout(const Job& job);

// What a layout sets in a job; 0 layers: the stage splits like the others.
struct PipelineSplit {
  int virtual_stages = 1;
  int first_stage_layers = 0, last_stage_layers = 0;
};

// Megatron's grammar: E embedding, t a transformer layer, L the loss, | between virtual stages,
// x*n and (...)*n repeat, commas are cosmetic. pp x v stages, in virtual-stage-major order.
// topoplan models layouts of job_stage_chunks' shape (even middle stages); another is an error
// that names the closest it models.
Result<PipelineSplit> megatron_pipeline_layout_parse(std::string_view layout, int pp, int layers);

}  // namespace topoplan

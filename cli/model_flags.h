// The flags every command that scores a job takes: what the links deliver (--calibration) and what
// else loads the fabric (--fabric, --background), and the help of --job and --layout.
#pragma once

#include <CLI/CLI.hpp>

#include "planner/job_inputs.h"

namespace topoplan::cli {

void model_flags_add(CLI::App& app, ModelSources& sources);

// --job's help, the same for every command that scores a job.
inline constexpr const char* kJobHelp =
    "job file (docs/job-format.md), e.g. data/jobs/llama3-70b.json, or a file of Megatron-LM arguments or a whole "
    "torchrun ... pretrain_gpt.py launch line (docs/job-format.md, \"Megatron-LM arguments\")";
// What --layout takes, for every command that reads a layout.
inline constexpr const char* kLayoutHelp =
    "rank -> GPU map (docs/layout-formats.md): a plan file (plan.json), JSON, a host list in rank order (h001 per "
    "rank as in SLURM_HOSTFILE, h[001-004], h001 slots=8), an Open MPI rankfile, or plan's ranks.env or torchrun.txt";

}  // namespace topoplan::cli

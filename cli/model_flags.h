// The flags every command that scores a job takes: what the links deliver (--calibration) and what
// else loads the fabric (--fabric, --background). Shared by score and plan.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "planner/score_state.h"

namespace topoplan::cli {

struct ModelFlags {
  std::string calibration, fabric = "shared", background;
};

void model_flags_add(CLI::App& app, ModelFlags& flags);

// The loaded inputs, kept alive for ScoreOptions, which points into them.
struct ModelInputs {
  Calibration calibration = calibration_default();
  Background background;
  ScoreOptions options;
};
// Loads the calibration and background files; errors name the file.
Result<void> model_flags_load(const ModelFlags& flags, const Cluster& cluster, ModelInputs& into);

}  // namespace topoplan::cli

#include "cli/model_flags.h"

namespace topoplan::cli {

void model_flags_add(CLI::App& app, ModelSources& f) {
  app.add_option("--calibration", f.calibration, "overlay of effective link bandwidths (JSON)");
  app.add_option("--fabric", f.fabric,
                 "shared: other jobs fill the fabric, each host gets its fair share of every tier above it "
                 "(default); idle: the job is alone")
      ->check(CLI::IsMember({"shared", "idle"}));
  app.add_option("--background", f.background,
                 "utilization of links by other traffic, per tier or link (JSON, docs/model.md)");
}

}  // namespace topoplan::cli

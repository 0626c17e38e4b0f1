#include "cli/model_flags.h"

namespace topoplan::cli {

void model_flags_add(CLI::App& app, ModelFlags& f) {
  app.add_option("--calibration", f.calibration, "overlay of effective link bandwidths (JSON)");
  app.add_option("--fabric", f.fabric,
                 "shared: other jobs fill the fabric, each host gets its fair share of every tier above it "
                 "(default); idle: the job is alone")
      ->check(CLI::IsMember({"shared", "idle"}));
  app.add_option("--background", f.background,
                 "utilization of links by other traffic, per tier or link (JSON, docs/model.md)");
}

Result<void> model_flags_load(const ModelFlags& f, const Cluster& c, ModelInputs& in) {
  Result<Calibration> cl = calibration_load_or_default(f.calibration);
  RETURN_IF_ERROR(cl);
  in.calibration = std::move(*cl);
  in.options.calibration = &in.calibration;
  in.options.fabric = f.fabric == "idle" ? FabricMode::idle : FabricMode::shared;
  if (!f.background.empty()) {
    Result<Background> bg = background_load(f.background, c);
    RETURN_IF_ERROR(bg);
    in.background = std::move(*bg);
    in.options.background = &in.background;
  }
  return {};
}

}  // namespace topoplan::cli

#include "validate/calibrate_json.h"

namespace topoplan {

nlohmann::json calibration_fit_to_json(const std::vector<std::string>& sources,
                                       const std::vector<CalibrationSeries>& series, const CalibrationFit& fit,
                                       const std::vector<HeldSize>& held, double tolerance, bool failed,
                                       const std::string& written) {
  auto fit_json = [](const LinearFit& f) {
    return nlohmann::json{{"alpha_us", f.alpha_us}, {"beta_GBps", f.beta_GBps}};
  };
  nlohmann::json classes = nlohmann::json::array(), rows = nlohmann::json::array(), held_json = nlohmann::json::array();
  for (const ClassFit& c : fit.classes)
    classes.push_back({{"class", calibration_class_name(c.cls)},
                       {"series", c.series},
                       {"bandwidth_series", c.bandwidth_series},
                       {"line_GBps", c.line_GBps},
                       {"efficiency_before", c.efficiency_before},
                       {"efficiency_after", c.efficiency_after},
                       {"effective_GBps", c.line_GBps * c.efficiency_after},
                       {"latency_us", c.latency_us},
                       {"measured", {{"alpha_us", c.alpha_us}, {"beta_GBps", c.beta_GBps}}},
                       {"clamped", c.clamped}});
  for (const SeriesFit& s : fit.series) {
    nlohmann::json j = {{"label", series[s.series].label},
                        {"op", std::string(to_string(series[s.series].op))},
                        {"ranks", series[s.series].gpus.size()},
                        {"points", series[s.series].points.size()}};
    if (s.cls) {
      j["class"] = calibration_class_name(*s.cls);
      j["algorithm"] = s.algorithm;
      j["channel_bound"] = s.channel_bound;
      j["measured"] = fit_json(s.measured);
      j["model_before"] = fit_json(s.before);
      j["model_after"] = fit_json(s.after);
    } else {
      j["not_fitted"] = s.why_not;
    }
    rows.push_back(std::move(j));
  }
  nlohmann::json points = nlohmann::json::array();
  for (const HeldOut& h : fit.held_out)
    points.push_back({{"series", series[h.series].label},
                      {"bytes", h.bytes},
                      {"measured_us", h.measured_us},
                      {"predicted_us", h.predicted_us},
                      {"error", h.error()}});
  for (const HeldSize& s : held)
    held_json.push_back({{"bytes", s.bytes}, {"series", s.series}, {"median_error", s.median_error}});
  return {{"format", "topoplan-calibrate"},
          {"sources", sources},
          {"calibration", calibration_to_json(fit.calibration)},
          {"iterations", fit.iterations},
          {"classes", std::move(classes)},
          {"series", std::move(rows)},
          {"held_out",
           {{"sizes", std::move(held_json)}, {"points", std::move(points)}, {"tolerance", tolerance}, {"ok", !failed}}},
          {"notes", fit.notes},
          {"written", written.empty() ? nlohmann::json(nullptr) : nlohmann::json(written)}};
}

}  // namespace topoplan

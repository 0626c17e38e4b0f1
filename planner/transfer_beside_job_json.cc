#include "planner/transfer_beside_job_json.h"

#include <cmath>

namespace topoplan {

namespace {

nlohmann::json seconds_json(double s) { return std::isfinite(s) ? nlohmann::json(s) : nlohmann::json(nullptr); }

}  // namespace

nlohmann::json transfer_beside_job_to_json(const Cluster& c, const TransferBesideJobRequest& req,
                                           const TransferBesideJob& r) {
  const DciDirection& d = r.directions[0];
  const JobScore& score = r.score;
  nlohmann::json j = {{"bytes", req.bytes}, {"efficiency", req.efficiency}, {"from", req.from},
                      {"to", req.to},       {"length_km", d.length_km},     {"propagation_s", r.propagation_s}};
  j["job"] = {{"name", score.job},
              {"layout", score.layout},
              {"fabric", std::string(to_string(score.fabric))},
              {"background", score.background},
              {"step_s", score.step_s}};
  j["directions"] = nlohmann::json::array();
  for (const DciDirection& x : r.directions) {
    nlohmann::json phases = nlohmann::json::object();
    for (size_t p = 0; p < kPhases; ++p)
      phases[std::string(phase_window_name(static_cast<Phase>(p)))] = x.job_phase_GBps[p] * 8;
    j["directions"].push_back(
        {{"from", c.sites()[static_cast<size_t>(x.from_site)]},
         {"to", c.sites()[static_cast<size_t>(x.to_site)]},
         {"links", x.edges.size()},
         {"capacity_gbit_s", x.capacity_GBps * 8},
         {"background_gbit_s", x.background_GBps * 8},
         {"job_bytes_per_step", x.job_bytes_per_step},
         {"job_avg_gbit_s", x.job_avg_GBps * 8},
         {"job_phase_gbit_s", phases},
         {"job_peak_gbit_s", x.job_peak_GBps * 8},
         {"job_peak_phase",
          x.job_peak_GBps > 0 ? nlohmann::json(std::string(phase_window_name(x.peak_phase))) : nlohmann::json(nullptr)},
         {"spare_avg_gbit_s", x.spare_avg_GBps() * 8},
         {"spare_peak_gbit_s", x.spare_peak_GBps() * 8}});
  }
  j["on_spare"] = {{"rate_gbit_s", d.spare_avg_GBps() * 8}, {"seconds", seconds_json(r.spare_s)}};
  j["taking_share"] = {{"share", req.share},
                       {"rate_gbit_s", r.take_GBps * 8},
                       {"seconds", seconds_json(r.take_s)},
                       {"job_step_s", r.slowed_step_s},
                       {"job_slowdown", r.slowdown},
                       {"job_time_lost_s", seconds_json(r.lost_s)}};
  if (req.every_s)
    j["every"] = {{"period_s", *req.every_s},
                  {"share_of_capacity", r.every_share_of_capacity},
                  {"finishes_on_spare", r.spare_s <= *req.every_s},
                  {"finishes_taking_share", r.take_s <= *req.every_s}};
  return j;
}

}  // namespace topoplan

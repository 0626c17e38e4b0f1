#include "observe/observe_job_json.h"

#include "planner/group_ref.h"

namespace topoplan {
namespace {

nlohmann::json optional_json(const std::optional<double>& x) {
  return x ? nlohmann::json(*x) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json observe_job_to_json(const Cluster& c, const ObserveJob& r,
                                   const std::vector<std::string>& counter_files) {
  const JobScore& score = r.score;
  nlohmann::json j = {{"job", score.job},
                      {"layout", score.layout},
                      {"step_s", r.options.step_s},
                      {"model_step_s", r.options.model_step_s},
                      {"step_measured", r.step_measured},
                      {"tolerance", r.options.tolerance},
                      {"note", kObserveCorrelation}};
  j["counters"] = counter_files;
  j["links"] = nlohmann::json::array();
  for (const LinkObservation& o : r.rows) {
    nlohmann::json groups = nlohmann::json::array();
    if (!o.verdicts.empty())
      for (const LinkUser& u : r.users_of(o.edge)) {
        const TrafficItem& it = r.state->traffic().items[u.item];
        groups.push_back({{"group", group_kind_name(it.group)},
                          {"index", u.list_index},
                          {"op", std::string(to_string(it.op))},
                          {"what", it.what}});
      }
    nlohmann::json verdicts = nlohmann::json::array();
    for (LinkVerdict v : o.verdicts) verdicts.push_back(std::string(to_string(v)));
    const std::optional<double> observed_gbit_s =
        o.observed_GBps ? std::optional<double>(*o.observed_GBps * 8) : std::nullopt;
    j["links"].push_back(
        {{"link", c.edge_name(o.edge)},
         {"port", o.port},
         {"counter", o.counter},
         {"direction", o.transmit ? "tx" : "rx"},
         {"where", o.where},
         {"window_s", o.window_s},
         {"capacity_gbit_s", o.capacity_GBps * 8},
         {"observed_gbit_s", optional_json(observed_gbit_s)},
         {"predicted_gbit_s", o.predicted_GBps * 8},
         {"ratio", optional_json(o.ratio())},
         {"predicted_peak_gbit_s", o.predicted_peak_GBps * 8},
         {"peak_phase", o.predicted_peak_GBps > 0 ? nlohmann::json(std::string(phase_window_name(o.peak_phase)))
                                                  : nlohmann::json(nullptr)},
         {"discards", optional_json(o.discards)},
         {"errors", optional_json(o.errors)},
         {"wait", optional_json(o.wait)},
         {"pause", optional_json(o.pause)},
         {"ecn_marked", optional_json(o.ecn_marked)},
         {"counter_flags", o.counter_flags},
         {"verdicts", verdicts},
         {"groups", groups}});
  }
  j["unmatched"] = nlohmann::json::array();
  for (const UnmatchedCounter& u : r.unmatched)
    j["unmatched"].push_back({{"counter", u.counter}, {"where", u.where}, {"reason", u.reason}});
  return j;
}

}  // namespace topoplan

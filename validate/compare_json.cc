#include "validate/compare_json.h"

#include "planner/score_json.h"

namespace topoplan {

nlohmann::json comparison_to_json(const Cluster& c, const std::string& plan_path, const std::string& measured_path,
                                  const Measured& m, const Comparison& cmp) {
  auto or_null = [](bool known, const nlohmann::json& v) { return known ? v : nlohmann::json(nullptr); };
  nlohmann::json rows = nlohmann::json::array();
  for (const CompareRow& r : cmp.rows)
    rows.push_back({{"kind", r.measured.kind},
                    {"index", r.measured.index},
                    {"ranks", r.measured.ranks},
                    {"op", std::string(to_string(r.measured.op))},
                    {"bytes", r.measured.bytes},
                    {"predicted_us", or_null(cmp.timed, r.predicted_us)},
                    {"measured_us", r.measured.time_us},
                    {"ratio", or_null(cmp.timed, r.ratio)},
                    {"predicted_busbw_GBps", or_null(cmp.timed, r.predicted_busbw_GBps)},
                    {"measured_busbw_GBps", r.measured.busbw_GBps},
                    {"predicted_with", or_null(cmp.timed, r.contended ? "every group of the item" : "the group alone")},
                    {"measured_slowdown", or_null(r.measured_slowdown > 0, r.measured_slowdown)},
                    {"predicted_slowdown", or_null(r.predicted_slowdown > 0, r.predicted_slowdown)},
                    {"bound_by", or_null(r.has_hot_edge, r.has_hot_edge ? c.edge_name(r.hot_edge) : "")},
                    {"slow", r.slow},
                    {"wrong", r.measured.wrong}});
  nlohmann::json suspects = nlohmann::json::array();
  for (const Suspect& s : cmp.suspects) {
    nlohmann::json j = edge_json(c, s.edge);
    j["slow_groups"] = s.slow_groups;
    suspects.push_back(std::move(j));
  }
  return {{"plan", plan_path},
          {"measured", measured_path},
          {"backend", m.backend},
          {"timing_compared", cmp.timed},
          {"note", or_null(!cmp.timed, kCompareHostMemoryNote)},
          {"threshold", cmp.threshold},
          {"slow_groups", cmp.slow},
          {"wrong_results", cmp.wrong},
          {"rows", std::move(rows)},
          {"suspects", std::move(suspects)}};
}

}  // namespace topoplan

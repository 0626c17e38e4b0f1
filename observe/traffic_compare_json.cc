#include "observe/traffic_compare_json.h"

namespace topoplan {

nlohmann::json traffic_rows_json(const std::vector<TrafficRow>& rows) {
  nlohmann::json j = nlohmann::json::array();
  for (const TrafficRow& r : rows)
    j.push_back({{"group_size", r.group_size},
                 {"op", r.op},
                 {"kinds", r.kinds},
                 {"model_bytes_per_step", r.model_bytes},
                 {"model_calls_per_step", r.model_calls},
                 {"model_groups", r.model_groups},
                 {"observed_bytes_per_step", r.observed_bytes},
                 {"observed_calls_per_step", r.observed_calls},
                 {"observed_comms", r.observed_comms},
                 {"verdict", std::string(to_string(r.verdict))}});
  return j;
}

}  // namespace topoplan

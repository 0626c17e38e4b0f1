// The log's traffic beside the model's as JSON: the "beside_model" of `topoplan traffic --job --json`.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "observe/traffic_compare.h"

namespace topoplan {

nlohmann::json traffic_rows_json(const std::vector<TrafficRow>& rows);

}  // namespace topoplan

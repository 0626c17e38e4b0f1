// A prediction as JSON, what `topoplan collective --json` prints: the choice, its time and its
// bottleneck, and the terms of every candidate (docs/cost-model.md).
#pragma once

#include <nlohmann/json.hpp>

#include "cost/collective.h"

namespace topoplan {

nlohmann::json collective_prediction_to_json(const CollectivePrediction& prediction);

}  // namespace topoplan

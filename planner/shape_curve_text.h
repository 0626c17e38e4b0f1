// The shape curve for people (a table: each shape, its hosts, step, exposed communication, what it
// costs over the best) and for scripts (JSON with the same).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "planner/shape_curve.h"

namespace topoplan {

// `now`: the planner's best on the hosts free now, when given: printed beside the best shape, with
// what waiting for that shape would gain.
std::string shape_curve_text(const Cluster& cluster, const Job& job, const ShapeCurve& curve, const Plan* now = nullptr);
nlohmann::json shape_curve_json(const Cluster& cluster, const Job& job, const ShapeCurve& curve,
                                const Plan* now = nullptr);

}  // namespace topoplan

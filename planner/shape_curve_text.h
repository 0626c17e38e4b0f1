// The shape curve for people (a table: each shape, its hosts, step, exposed communication, what it
// costs over the best) and for scripts (JSON with the same).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "planner/shape_curve.h"

namespace topoplan {

std::string shape_curve_text(const Cluster& cluster, const Job& job, const ShapeCurve& curve);
nlohmann::json shape_curve_json(const Cluster& cluster, const Job& job, const ShapeCurve& curve);

}  // namespace topoplan

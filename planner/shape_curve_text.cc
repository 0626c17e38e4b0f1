#include "planner/shape_curve_text.h"

#include <nlohmann/json.hpp>

#include "base/text_table.h"
#include "base/units.h"
#include "base/words.h"
#include "topology/summary.h"

namespace topoplan {
namespace {

std::string over_best(const ShapeCurve& curve, const ShapeEntry& e) {
  const double best = curve.entries[curve.best].step_s;
  if (e.step_s <= best * 1.0005) return "best";
  return "+" + format_number(100 * (e.step_s - best) / best, 1) + "%";
}

}  // namespace

std::string shape_curve_text(const Cluster& c, const Job& job, const ShapeCurve& curve) {
  std::string out = job.name + " needs " + counted(curve.hosts_needed, "host") +
                    "; its step with the hosts in each shape (the planner on those hosts, the first free ones of "
                    "each unit):\n";
  using A = TextTable::Align;
  TextTable table({A::left, A::left, A::right, A::right, A::right});
  table.add({"shape", "hosts", "step", "exposed", "vs best"}, "  ");
  for (const ShapeEntry& e : curve.entries)
    table.add({shape_name(e), hostlist_of(c, e.hosts), format_duration(e.step_s), format_duration(e.exposed_s),
               over_best(curve, e)},
              "  ");
  return out + table.str();
}

nlohmann::json shape_curve_json(const Cluster& c, const Job& job, const ShapeCurve& curve) {
  nlohmann::json entries = nlohmann::json::array();
  const double best = curve.entries[curve.best].step_s;
  for (const ShapeEntry& e : curve.entries) {
    nlohmann::json hosts = nlohmann::json::array();
    for (int h : e.hosts) hosts.push_back(c.hosts()[static_cast<size_t>(h)].name);
    entries.push_back({{"shape", shape_name(e)},
                       {"level", std::string(to_string(e.level))},
                       {"split", e.split},
                       {"hosts", hosts},
                       {"step_s", e.step_s},
                       {"exposed_s", e.exposed_s},
                       {"order", e.order},
                       {"over_best", e.step_s / best - 1}});
  }
  return {{"job", job.name}, {"hosts_needed", curve.hosts_needed}, {"best", curve.best}, {"shapes", entries}};
}

}  // namespace topoplan

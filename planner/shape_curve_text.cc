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
  out += table.str();
  const ShapeAdvice a = shape_advice(c, curve);
  const std::string prefer = "prefer one " + std::string(to_string(a.preferred));
  if (!a.required_any) {
    out += "\nto ask for: nothing to require (every shape above is within " + format_number(100 * kShapeTolerance, 0) +
           "% of the best); " + prefer + "\n";
  } else {
    out += "\nto ask for: require one " + std::string(to_string(a.required)) + " (the shapes above inside one cost at most " +
           format_number(100 * a.required_worst, 1) + "% over the best, those beyond it up to " +
           format_number(100 * a.beyond, 1) + "%); " + prefer + "\n";
    out += a.slurm.empty() ? "  Slurm: no flag confines a job to one " + std::string(to_string(a.required)) + "\n"
                           : "  Slurm: sbatch " + a.slurm +
                                 (a.slurm.starts_with("--switches") ? "  (TIME: the longest to wait for it; tree plugin)"
                                                                    : "  (block plugin)") +
                                 "\n";
  }
  if (!a.kueue_required.empty())
    out += "  Kueue: kueue.x-k8s.io/podset-required-topology: \"" + a.kueue_required + "\"\n";
  if (!a.kueue_preferred.empty())
    out += "  Kueue: kueue.x-k8s.io/podset-preferred-topology: \"" + a.kueue_preferred + "\"\n";
  return out;
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
  const ShapeAdvice a = shape_advice(c, curve);
  nlohmann::json advice = {{"required", a.required_any ? nlohmann::json(std::string(to_string(a.required))) : nullptr},
                           {"preferred", std::string(to_string(a.preferred))},
                           {"tolerance", kShapeTolerance},
                           {"required_worst_over_best", a.required_worst},
                           {"beyond_over_best", a.beyond},
                           {"slurm", a.slurm.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.slurm)},
                           {"kueue_required", a.kueue_required.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.kueue_required)},
                           {"kueue_preferred", a.kueue_preferred.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.kueue_preferred)}};
  return {{"job", job.name},
          {"hosts_needed", curve.hosts_needed},
          {"best", curve.best},
          {"shapes", entries},
          {"advice", advice}};
}

}  // namespace topoplan

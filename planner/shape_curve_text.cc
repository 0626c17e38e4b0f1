#include "planner/shape_curve_text.h"

#include <nlohmann/json.hpp>

#include "base/text_table.h"
#include "base/units.h"
#include "base/words.h"
#include "topology/summary.h"

namespace topoplan {
namespace {

// "16 hosts in 2 leaf groups, 1 pod, 1 site".
std::string spans_text(const HostChoice& h) {
  return counted(static_cast<int64_t>(h.hosts.size()), "host") + " in " +
         counted(h.spans[static_cast<size_t>(Level::leaf_group)], "leaf group") + ", " +
         counted(h.spans[static_cast<size_t>(Level::pod)], "pod") + ", " +
         counted(h.spans[static_cast<size_t>(Level::site)], "site");
}

}  // namespace

std::string shape_curve_text(const Cluster& c, const Job& job, const ShapeCurve& curve, const Plan* now) {
  std::string out = job.name + " needs " + counted(curve.hosts_needed, "host") +
                    "; its step with the hosts in each shape (the planner on those hosts, the first free ones of "
                    "each unit):\n";
  using A = TextTable::Align;
  TextTable table({A::left, A::left, A::right, A::right, A::right});
  table.add({"shape", "hosts", "step", "exposed", "vs best"}, "  ");
  for (const ShapeEntry& e : curve.entries)
    table.add({shape_name(e), hostlist_of(c, e.hosts), format_duration(e.step_s), format_duration(e.exposed_s),
               format_over_best(e.step_s, curve.entries[curve.best].step_s)},
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
  if (a.volcano_tier > 0)
    out += "  Volcano: networkTopology: {mode: hard, highestTierAllowed: " + std::to_string(a.volcano_tier) +
           "}  (HyperNodes discovered from the same labels, nearest the host tier 1)\n";
  if (now) {
    const ShapeEntry& best = curve.entries[curve.best];
    out += "\nnow, on the free hosts: step " + format_duration(now->score.step_s) + ", exposed " +
           format_duration(now->score.exposed_comm_s) + " (the planner's choice: " + spans_text(now->hosts) + "); ";
    out += now->score.step_s > best.step_s * 1.0005
               ? "waiting for " + shape_name(best) + " would save " +
                     format_duration(now->score.step_s - best.step_s) + " per step (" +
                     format_number(100 * (now->score.step_s - best.step_s) / now->score.step_s, 1) + "%)\n"
               : "as good as the best shape: nothing to wait for\n";
  }
  return out;
}

nlohmann::json shape_curve_json(const Cluster& c, const Job& job, const ShapeCurve& curve, const Plan* now) {
  nlohmann::json entries = nlohmann::json::array();
  const double best = curve.entries[curve.best].step_s;
  for (const ShapeEntry& e : curve.entries) {
    entries.push_back({{"shape", shape_name(e)},
                       {"level", std::string(to_string(e.level))},
                       {"split", e.split},
                       {"hosts", host_names(c, e.hosts)},
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
                           {"kueue_preferred", a.kueue_preferred.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.kueue_preferred)},
                           {"volcano_highest_tier_allowed", a.volcano_tier > 0 ? nlohmann::json(a.volcano_tier) : nullptr}};
  nlohmann::json j = {{"job", job.name},
                      {"hosts_needed", curve.hosts_needed},
                      {"best", curve.best},
                      {"shapes", entries},
                      {"advice", advice}};
  if (now) {
    j["now"] = {{"step_s", now->score.step_s},
                {"exposed_s", now->score.exposed_comm_s},
                {"hosts", host_names(c, now->host_order)},
                {"leaf_groups", now->hosts.spans[static_cast<size_t>(Level::leaf_group)]},
                {"pods", now->hosts.spans[static_cast<size_t>(Level::pod)]},
                {"sites", now->hosts.spans[static_cast<size_t>(Level::site)]},
                {"wait_saves_s", std::max(0.0, now->score.step_s - best)}};
  }
  return j;
}

}  // namespace topoplan

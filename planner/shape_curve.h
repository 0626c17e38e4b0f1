// What a job's allocation shape costs on a fabric (topoplan advise): the planner's step when the
// job's hosts sit in one NVLink domain, one leaf group, one pod or one site, and when they are split
// over 2, 4 or 8 of those units, evenly or not (8:8, 12:4, 15:1 over two). Schedulers count
// domains; this says what each relaxation costs this job, so a scheduler can tell which level to
// require and which only to prefer.
#pragma once

#include <string>
#include <vector>

#include "planner/plan.h"

namespace topoplan {

struct ShapeEntry {
  Level level = Level::site;  // the units the hosts are spread over
  std::vector<int> split;     // hosts in each unit, largest first
  std::vector<int> hosts;     // the hosts planned on, unit by unit
  double step_s = 0, exposed_s = 0;
  std::string order;  // the plan's order string
};

struct ShapeCurve {
  int hosts_needed = 0;
  std::vector<ShapeEntry> entries;  // one unit first, by level; then the splits
  size_t best = 0;                  // the shortest step
};

// What to ask a scheduler for, read off the curve: the loosest level whose every shape evaluated
// within one unit stays within kShapeTolerance of the best (required), and the tightest that holds
// the best (preferred), in Slurm's and Kueue's words.
inline constexpr double kShapeTolerance = 0.05;
struct ShapeAdvice {
  bool required_any = false;  // false: every shape evaluated is within the tolerance
  Level required = Level::site, preferred = Level::site;
  double required_worst = 0;  // the worst shape within one unit of `required`, over the best
  double beyond = 0;          // the worst shape beyond it, over the best
  std::string slurm;          // sbatch's flag for `required`; "" when Slurm's plugins cannot say it
  // Kueue's podset-required-topology and podset-preferred-topology: the node label (as `topo export
  // --format k8s-labels` sets it) whose values group hosts as the level does; "" when none does.
  std::string kueue_required, kueue_preferred;
  // Volcano's networkTopology highestTierAllowed for `required`: its label's tier in HyperNode
  // discovery from those labels (nearest the host is 1); 0 when no label groups hosts that way.
  int volcano_tier = 0;
};
ShapeAdvice shape_advice(const Cluster& cluster, const ShapeCurve& curve);

// "one leaf group", "2 pods, 8:8", "2 NVLink domains, 15:1".
std::string shape_name(const ShapeEntry& entry);

// `request`: the planner's settings (free: the hosts a shape may take; empty = every host). Each
// shape's hosts are the first free ones of its units in topology order; shapes the free hosts
// cannot make, and those whose hosts another shape already has, are left out. An error when the
// job does not run on whole hosts of one kind.
Result<ShapeCurve> shape_curve(const Cluster& cluster, const Router& router, const Job& job, const PlanRequest& request);

}  // namespace topoplan

#include "planner/shape_curve.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/words.h"
#include "topology/formats/kubernetes.h"
#include "topology/locality.h"

namespace topoplan {
namespace {

constexpr Level kShapeLevels[] = {Level::domain, Level::leaf_group, Level::pod, Level::site};

std::string unit_name(Level level, size_t count) {
  const std::string one(to_string(level));
  return count == 1 ? "one " + one : std::to_string(count) + " " + one + "s";
}

}  // namespace

std::string shape_name(const ShapeEntry& e) {
  std::string name = unit_name(e.level, e.split.size());
  if (e.split.size() == 1) return name;
  std::string ratio;
  for (int n : e.split) ratio += (ratio.empty() ? "" : ":") + std::to_string(n);
  return name + ", " + ratio;
}

Result<ShapeCurve> shape_curve(const Cluster& c, const Router& r, const Job& job, const PlanRequest& req) {
  const Locality& loc = locality_of(c);
  std::vector<int> offered = hosts_offered(c, req.free);
  // Whole hosts only: a shape is counted in hosts.
  std::erase_if(offered, [&](int h) { return !req.down.host_whole(c, h) || c.hosts()[static_cast<size_t>(h)].gpus.empty(); });
  if (offered.empty()) return Error{"no whole host is free"};
  hosts_sort(loc, offered);
  const int per_host = static_cast<int>(c.hosts()[static_cast<size_t>(offered.front())].gpus.size());
  const int ranks = job_ranks(job);
  if (ranks % per_host != 0)
    return Error{"the job's " + std::to_string(ranks) + " ranks do not fill whole hosts of " +
                 std::to_string(per_host) + " GPUs"};
  ShapeCurve curve;
  curve.hosts_needed = ranks / per_host;
  const int need = curve.hosts_needed;
  if (static_cast<int>(offered.size()) < need)
    return Error{"the job needs " + counted(need, "host") + " of " + std::to_string(per_host) + " GPUs; " +
                 counted(static_cast<int64_t>(offered.size()), "whole host") + " free"};

  std::map<std::vector<int>, size_t> planned;  // host sets already planned, by their first entry
  auto add = [&](Level level, const std::vector<std::vector<int>*>& units, const std::vector<int>& split) -> Result<void> {
    ShapeEntry e;
    e.level = level;
    e.split = split;
    for (size_t i = 0; i < split.size(); ++i)
      e.hosts.insert(e.hosts.end(), units[i]->begin(), units[i]->begin() + split[i]);
    std::vector<int> key = e.hosts;
    std::sort(key.begin(), key.end());
    // Two shapes can name one host set (two pods of 8 are also four leaf groups of 4): planned once.
    if (auto same = planned.find(key); same != planned.end()) {
      const ShapeEntry& first = curve.entries[same->second];
      e.step_s = first.step_s;
      e.exposed_s = first.exposed_s;
      e.order = first.order;
      curve.entries.push_back(std::move(e));
      return {};
    }
    planned[key] = curve.entries.size();
    PlanRequest on = req;
    on.free = e.hosts;
    on.progress = nullptr;
    Result<Plan> plan = plan_job(c, r, job, on);
    RETURN_IF_ERROR(plan);
    e.step_s = plan->score.step_s;
    e.exposed_s = plan->score.exposed_comm_s;
    e.order = plan->job.parallel.order;
    curve.entries.push_back(std::move(e));
    return {};
  };

  // One unit at each level, then splits over units of that level: even over 2, 4 and 8, and over
  // two unevenly (3:1 and all but one).
  // On few hosts two rules can give one split (3:1 is also all but one of 4): listed once.
  std::vector<std::pair<Level, std::vector<int>>> splits;
  auto split_add = [&](Level level, std::vector<int> split) {
    std::pair<Level, std::vector<int>> s{level, std::move(split)};
    if (std::find(splits.begin(), splits.end(), s) == splits.end()) splits.push_back(std::move(s));
  };
  for (Level level : kShapeLevels) split_add(level, {need});
  for (Level level : kShapeLevels) {
    for (int k : {2, 4, 8})
      if (need % k == 0 && need >= k) split_add(level, std::vector<int>(static_cast<size_t>(k), need / k));
    if (need >= 4) split_add(level, {need - need / 4, need / 4});
    if (need >= 3) split_add(level, {need - 1, 1});
  }
  for (const auto& [level, split] : splits) {
    std::map<int, std::vector<int>> by_unit;  // free hosts of each unit, topology order
    for (int h : offered) by_unit[loc.unit(h, level)].push_back(h);
    // The first units, in topology order, with room for each part (largest part first).
    std::vector<std::vector<int>*> chosen;
    std::set<int> used;
    for (int part : split) {
      std::vector<int>* unit = nullptr;
      for (auto& [id, hosts] : by_unit)
        if (!used.count(id) && static_cast<int>(hosts.size()) >= part) {
          unit = &hosts;
          used.insert(id);
          break;
        }
      if (!unit) break;
      chosen.push_back(unit);
    }
    if (chosen.size() < split.size()) continue;
    RETURN_IF_ERROR(add(level, chosen, split));
  }
  if (curve.entries.empty()) return Error{"no shape of " + counted(need, "host") + " fits the free hosts"};
  for (size_t i = 1; i < curve.entries.size(); ++i)
    if (curve.entries[i].step_s < curve.entries[curve.best].step_s) curve.best = i;
  return curve;
}

namespace {

// The node label whose values group the hosts exactly as `level`'s units do; "" when none does.
std::string label_for(const Cluster& c, const Locality& loc, Level level) {
  const auto labels = k8s_host_labels(c, K8sLabels::topograph);
  if (labels.empty()) return "";
  for (const auto& label : labels.front()) {
    const std::string& key = label.first;  // not a structured binding: clang before 16 cannot capture one
    std::map<std::string, int> unit_of_value;
    std::map<int, std::string> value_of_unit;
    bool same = true;
    for (size_t h = 0; h < labels.size() && same; ++h) {
      const auto it = std::find_if(labels[h].begin(), labels[h].end(), [&](const auto& kv) { return kv.first == key; });
      if (it == labels[h].end()) {
        same = false;
        break;
      }
      const int unit = loc.unit(static_cast<int>(h), level);
      same = unit_of_value.emplace(it->second, unit).first->second == unit &&
             value_of_unit.emplace(unit, it->second).first->second == it->second;
    }
    if (same) return key;
  }
  return "";
}

}  // namespace

ShapeAdvice shape_advice(const Cluster& c, const ShapeCurve& curve) {
  const Locality& loc = locality_of(c);
  const double best = curve.entries[curve.best].step_s;
  auto within = [&](const ShapeEntry& e, Level level) {
    return std::all_of(e.hosts.begin(), e.hosts.end(),
                       [&](int h) { return loc.unit(h, level) == loc.unit(e.hosts.front(), level); });
  };
  ShapeAdvice a;
  bool preferred = false;
  double worst_all = 0;
  for (const ShapeEntry& e : curve.entries) worst_all = std::max(worst_all, e.step_s / best - 1);
  for (Level level : kShapeLevels) {
    double worst = -1, closest = -1;
    for (const ShapeEntry& e : curve.entries)
      if (within(e, level)) {
        worst = std::max(worst, e.step_s / best - 1);
        if (closest < 0 || e.step_s / best - 1 < closest) closest = e.step_s / best - 1;
      }
    if (worst < 0) continue;  // no shape fits one unit of it
    if (!preferred && closest <= 0.005) {
      a.preferred = level;
      preferred = true;
    }
    if (worst <= kShapeTolerance && worst_all > kShapeTolerance) {
      a.required_any = true;
      a.required = level;
      a.required_worst = worst;
    }
  }
  if (a.required_any) {
    for (const ShapeEntry& e : curve.entries)
      if (!within(e, a.required)) a.beyond = std::max(a.beyond, e.step_s / best - 1);
    // Slurm: the tree plugin confines a job to one leaf switch's hosts (--switches=1; topo export
    // writes a leaf group's leaves with the same hosts); the block plugin to one block (an NVLink
    // domain in topo export's slurm-block) with a segment of every host. No flag confines to a pod.
    if (a.required == Level::leaf_group) a.slurm = "--switches=1@TIME";
    if (a.required == Level::domain) a.slurm = "--segment=" + std::to_string(curve.hosts_needed);
    a.kueue_required = label_for(c, loc, a.required);
    const std::vector<std::string> tiers = k8s_level_keys(c, K8sLabels::topograph);
    if (auto at = std::find(tiers.begin(), tiers.end(), a.kueue_required); !a.kueue_required.empty() && at != tiers.end())
      a.volcano_tier = static_cast<int>(at - tiers.begin()) + 1;
  }
  a.kueue_preferred = label_for(c, loc, a.preferred);
  return a;
}

}  // namespace topoplan

#include "planner/replan_text.h"

#include <nlohmann/json.hpp>

#include "base/text_table.h"
#include "base/units.h"
#include "base/words.h"
#include "topology/summary.h"

namespace topoplan {
namespace {

std::string change_text(double before, double after) {
  return format_number(100 * (after - before) / before, 1) + "%";
}

}  // namespace

std::string replan_text(const Cluster& c, const std::string& plan_path, const Replan& rp,
                        const std::vector<std::string>& written) {
  const JobScore& s = rp.plan.score;
  const int world = rp.plan.layout.world_size();
  std::string out = "replan: " + rp.plan.job.name + " from " + plan_path + ": ";
  for (size_t i = 0; i < rp.replacements.size(); ++i) {
    const HostReplacement& r = rp.replacements[i];
    const std::string scored = " (best of " + counted(static_cast<int64_t>(r.scored.size()), "place") + " scored)";
    if (r.failed)
      out += (i ? "; " : "") + host_name(c, r.host) + " failed, its ranks go to " + host_name(c, r.spare) + scored;
    else
      out += (i ? "; " : "") + host_name(c, r.host) + " runs slower, its ranks " +
             (r.spare == r.host ? "stay" : "go to " + host_name(c, r.spare)) + scored;
  }
  if (rp.replacements.empty()) out += "no host to move";
  out += "; " + std::to_string(world - static_cast<int>(rp.moved_ranks.size())) + " of " + std::to_string(world) +
         " ranks keep their GPU\n";
  out += "step " + format_duration(s.step_s) + ", exposed communication " + format_duration(s.exposed_comm_s) + " (" +
         std::string(to_string(s.fabric)) + " fabric)\n";
  for (const HostReplacement& r : rp.replacements) {
    out += "\nplaces for " + host_name(c, r.host) + "'s ranks" +
           ", each scored with its ranks (ties go to fewer bytes on the highest tier):\n";
    using A = TextTable::Align;
    TextTable table({A::left, A::right, A::right, A::right, A::right});
    table.add({"host", "step", "exposed", "leaf-spine/step", "above spines/step"}, "  ");
    for (const SpareScore& x : r.scored)
      table.add({host_name(c, x.host) + (x.host == r.host ? " (stay)" : "") + (x.host == r.spare ? " (chosen)" : ""),
                 format_duration(x.step_s),
                 format_duration(x.exposed_s), format_bytes(x.spine_bytes), format_bytes(x.core_bytes)},
                "  ");
    out += table.str();
  }
  out += "\n";
  if (!rp.swap_searched)
    out += "swap: not searched (more than " + std::to_string(kSwapSearchHosts) + " hosts)\n";
  else if (rp.swap)
    out += "swap: exchanging the ranks of " + host_name(c, rp.swap->a) + " and " + host_name(c, rp.swap->b) +
           " as well moves " + std::to_string(rp.swap->ranks) + " more ranks: step " +
           format_duration(rp.swap->step_s) + " (" + change_text(s.step_s, rp.swap->step_s) + "), not applied\n";
  else
    out += "swap: no exchange of a new host with another shortens the step\n";
  out += "full re-plan on these hosts: step " + format_duration(rp.full.score.step_s) + " (" +
         change_text(s.step_s, rp.full.score.step_s) + "), exposed " + format_duration(rp.full.score.exposed_comm_s) +
         ", order " + rp.full.job.parallel.order + "; it moves " + std::to_string(rp.full_moved) + " of " +
         std::to_string(world) + " ranks\n";
  if (!written.empty()) {
    out += "\nwrote:";
    for (const std::string& f : written) out += " " + f;
    out += "\n";
  }
  return out;
}

nlohmann::json replan_json(const Cluster& c, const Replan& rp, nlohmann::json plan) {
  nlohmann::json reps = nlohmann::json::array();
  for (const HostReplacement& r : rp.replacements) {
    nlohmann::json scored = nlohmann::json::array();
    for (const SpareScore& x : r.scored)
      scored.push_back({{"host", host_name(c, x.host)},
                        {"step_s", x.step_s},
                        {"exposed_s", x.exposed_s},
                        {"spine_bytes", x.spine_bytes},
                        {"core_bytes", x.core_bytes}});
    reps.push_back({{"host", host_name(c, r.host)},
                    {"failed", r.failed},
                    {"spare", host_name(c, r.spare)},
                    {"scored", scored}});
  }
  nlohmann::json swap = nullptr;
  if (rp.swap)
    swap = {{"a", host_name(c, rp.swap->a)},
            {"b", host_name(c, rp.swap->b)},
            {"ranks", rp.swap->ranks},
            {"step_s", rp.swap->step_s},
            {"exposed_s", rp.swap->exposed_s}};
  return {{"format", "topoplan-replan"},
          {"replacements", reps},
          {"moved_ranks", rp.moved_ranks},
          {"step_s", rp.plan.score.step_s},
          {"exposed_s", rp.plan.score.exposed_comm_s},
          {"swap_searched", rp.swap_searched},
          {"swap", swap},
          {"full_replan",
           {{"step_s", rp.full.score.step_s},
            {"exposed_s", rp.full.score.exposed_comm_s},
            {"order", rp.full.job.parallel.order},
            {"moved_ranks", rp.full_moved}}},
          {"plan", std::move(plan)}};
}

std::string moved_ranks_text(const Cluster& c, const Layout& before, const Replan& rp) {
  std::string out = "# rank, its GPU in the plan, its GPU now (topoplan replan)\n";
  for (int r : rp.moved_ranks)
    out += std::to_string(r) + " " + c.device(before.gpu_of_rank[static_cast<size_t>(r)]).name + " " +
           c.device(rp.plan.layout.gpu_of_rank[static_cast<size_t>(r)]).name + "\n";
  return out;
}

}  // namespace topoplan

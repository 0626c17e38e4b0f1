#include "planner/plan_text.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "base/units.h"
#include "base/words.h"
#include "planner/score_text.h"
#include "topology/summary.h"

namespace topoplan {

namespace {

std::string ratio_text(double base, double plan) {
  if (plan <= 0) return base <= 0 ? "the same" : "all of it saved";
  const double r = base / plan;
  if (r >= 1.005) return format_number(r, 2) + "x the plan's";
  if (r <= 0.995) return format_number(r, 2) + "x the plan's";
  return "the same as the plan";
}

}  // namespace

std::string plan_text(const Cluster& c, const std::string& cluster, const Plan& p,
                      const std::vector<std::string>& written) {
  std::ostringstream out;
  const JobScore& s = p.score;
  const PlanBaseline& input = p.baselines.front();
  out << "plan: " << p.job.name << " on " << cluster << ", " << counted(s.ranks, "rank") << " on "
      << counted(static_cast<int64_t>(p.host_order.size()), "host") << ", order " << p.job.parallel.order << ": step "
      << format_duration(s.step_s) << ", exposed communication " << format_duration(s.exposed_comm_s);
  if (!input.scored) {
    out << " (the input order cannot be scored)\n";
  } else {
    // The step both ways: the share of the step a scheduler gains, beside the exposed time it comes from.
    const double before = s.compute_s + input.exposed_s;
    out << "; the input order's: step " << format_duration(before) << ", exposed " << format_duration(input.exposed_s);
    if (before > s.step_s * 1.0005)
      out << " (the plan's step is " << format_number(100 * (before - s.step_s) / before, 1) << "% shorter)";
    out << "\n";
  }
  out << "fabric: " << to_string(s.fabric);
  if (!s.background.empty())
    out << ", background " << s.background;
  else if (s.fabric == FabricMode::shared)
    out << " (every other port of every tier busy, the job gets its fair share: a worst case)";
  else
    out << " (the job alone on the cluster)";
  if (p.idle) {
    const double before = s.compute_s + p.idle->input_exposed_s, after = s.compute_s + p.idle->exposed_s;
    out << "; with the job alone (--fabric idle): step " << format_duration(before) << " in the input order, "
        << format_duration(after) << " in the plan";
    if (input.scored && input.exposed_s > s.exposed_comm_s * 1.0005)
      out << (before <= after * 1.0005
                  ? ", so the shared fabric's worst case makes the whole difference"
                  : ", " + format_number(100 * (before - after) / before, 1) + "% shorter without it");
  }
  out << "\n\n";

  out << "hosts: " << p.hosts.why << "\n  in rank order: " << hostlist_of(c, p.host_order) << "\n";
  out << "step " << format_duration(s.step_s) << " = compute " << format_duration(s.compute_s)
      << " + exposed communication " << format_duration(s.exposed_comm_s) << " (" << to_string(s.fabric) << " fabric"
      << (s.background.empty() ? "" : ", background " + s.background) << "), MFU " << format_number(100 * s.mfu, 1)
      << "%\n\n";
  const std::string memory = memory_section_text(s);
  if (!memory.empty()) out << memory << "\n";

  out << "compared (exposed communication per step):\n";
  auto row = [&](const std::string& name, const std::string& order, double exposed, const std::string& what) {
    out << "  " << std::left << std::setw(32) << name << std::setw(18) << order << std::right << std::setw(12)
        << format_duration(exposed) << "  " << what << "\n";
  };
  for (const PlanBaseline& b : p.baselines) {
    if (!b.scored) {
      out << "  " << std::left << std::setw(32) << b.name << std::setw(18) << b.order << std::right << std::setw(12)
          << "-"
          << "  " << b.what << "\n";
      continue;
    }
    row(b.name, b.order, b.exposed_s,
        b.what + "; " + ratio_text(b.exposed_s, s.exposed_comm_s) +
            (b.violations ? "; " + std::to_string(b.violations) + " groups break a rule" : ""));
  }
  row("plan", p.job.parallel.order, s.exposed_comm_s, "hosts regrouped along the fabric, then local search");
  if (p.lower_bound_s) row("lower bound", "", *p.lower_bound_s, p.lower_bound_how);
  out << "\norder strings tried (placed in topology order, before local search):\n";
  const size_t shown = std::min<size_t>(p.candidates.size(), 6);
  for (size_t i = 0; i < shown; ++i)
    out << "  " << std::left << std::setw(18) << p.candidates[i].order << std::right << std::setw(12)
        << format_duration(p.candidates[i].exposed_s)
        << (p.candidates[i].violations ? "  (" + std::to_string(p.candidates[i].violations) + " groups break a rule)"
                                       : "")
        << "\n";
  if (p.candidates.size() > shown) out << "  and " << p.candidates.size() - shown << " more\n";

  out << "\nwhere the exposed time goes:\n";
  for (int k = 0; k < kTrafficKinds; ++k) {
    const double e = s.by_kind[static_cast<size_t>(k)].exposed_s;
    if (e <= 0) continue;
    out << "  " << std::left << std::setw(4) << to_string(static_cast<TrafficKind>(k)) << std::right << std::setw(12)
        << format_duration(e) << std::setw(7) << format_number(100 * e / s.exposed_comm_s, 0) << "%\n";
  }
  if (s.exposed_comm_s <= 0) out << "  nothing: every collective hides behind compute\n";
  out << "\nsearch: " << p.stats.orders << " distinct order strings, local search on " << p.stats.searched << ", "
      << p.stats.moves << " moves (" << p.stats.improved << " kept)"
      << (p.stats.hit_time_limit ? "; stopped at --time-limit, so another run may differ" : "") << "\n";
  out << "\nfindings:\n" << findings_text(p.findings, p.score);
  if (!written.empty()) {
    out << "\nwrote:";
    for (const std::string& w : written) out << " " << w;
    out << "\n";
  }
  return out.str();
}

}  // namespace topoplan

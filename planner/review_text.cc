#include "planner/review_text.h"

#include <iomanip>
#include <sstream>

#include "base/units.h"
#include "planner/score_text.h"
#include "topology/summary.h"

namespace topoplan {

std::string review_text(const Cluster& c, const std::string& order, const Review& r) {
  std::ostringstream out;
  const JobScore& a = r.score;
  const JobScore& b = r.best.score;
  out << r.verdict << "\n\n";
  auto row = [&](const std::string& name, const std::string& x, const std::string& y) {
    out << "  " << std::left << std::setw(10) << name << std::right << std::setw(18) << x << std::setw(18) << y << "\n";
  };
  row("", "this layout", "planner's best");
  row("order", order, r.best.job.parallel.order);
  row("exposed", format_duration(a.exposed_comm_s), format_duration(b.exposed_comm_s));
  for (int k = 0; k < kTrafficKinds; ++k) {
    const double x = a.by_kind[static_cast<size_t>(k)].exposed_s, y = b.by_kind[static_cast<size_t>(k)].exposed_s;
    if (x > 0 || y > 0)
      row("  " + std::string(to_string(static_cast<TrafficKind>(k))), format_duration(x), format_duration(y));
  }
  row("step", format_duration(a.step_s), format_duration(b.step_s));
  row("MFU", format_number(100 * a.mfu, 1) + "%", format_number(100 * b.mfu, 1) + "%");
  // Where ranks sit does not change what a GPU holds: one table serves both layouts.
  const std::string memory = memory_section_text(a);
  if (!memory.empty()) out << "\n" << memory;
  out << "\nfindings of this layout:\n" << findings_text(a.findings, a);
  out << "\nthe planner's best: order " << r.best.job.parallel.order << ", hosts in rank order "
      << hostlist_of(c, r.best.host_order) << "\n";
  return out.str();
}

}  // namespace topoplan

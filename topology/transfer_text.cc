#include "topology/transfer_text.h"

#include <sstream>

#include "base/units.h"

namespace topoplan {

std::string transfer_efficiency_text(double efficiency) {
  return efficiency < 1 ? " x " + format_number(efficiency, 3) + " efficiency" : "";
}

std::string transfer_alone_text(const TransferAlone& a) {
  std::ostringstream out;
  const std::string efficiency = transfer_efficiency_text(a.efficiency);
  if (const std::optional<TransferEstimate>& t = a.estimate) {
    out << format_bytes(t->bytes) << " at " << format_rate_gbit(t->rate_GBps);
    if (!a.via.empty()) out << " (" << a.via << ")";
    out << efficiency << ": " << format_duration(t->seconds) << "\n";
    if (t->propagation_s > 0)
      out << "  includes propagation " << format_duration(t->propagation_s) << " over " << format_number(a.length_km, 1)
          << " km\n";
    if (a.deadline_s > 0)
      out << "  to finish within " << format_duration(a.deadline_s) << ": " << format_rate_gbit(a.required_gbit_s / 8)
          << " line rate needed\n";
    if (a.every_s)
      out << "  every " << format_duration(*a.every_s) << ": " << format_number(100 * a.every_share, 2)
          << "% of the line rate on average; " << (t->seconds <= *a.every_s ? "done" : "not done")
          << " before the next one\n";
  } else {
    out << format_bytes(a.bytes) << efficiency << " within " << format_duration(a.deadline_s) << ": "
        << format_rate_gbit(a.required_gbit_s / 8) << " line rate needed\n";
  }
  return out.str();
}

}  // namespace topoplan

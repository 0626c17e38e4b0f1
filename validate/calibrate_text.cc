#include "validate/calibrate_text.h"

#include <sstream>

#include "base/text_table.h"
#include "base/units.h"

namespace topoplan {
namespace {

std::string percent(double fraction) { return (fraction > 0 ? "+" : "") + format_number(100 * fraction, 1) + "%"; }

}  // namespace

std::string calibration_run_text(const CalibrateOptions& o, const CalibrationRun& run, const std::string& written) {
  const std::vector<CalibrationSeries>& series = run.series;
  const CalibrationFit& fit = run.fit;
  std::ostringstream out;
  size_t used = 0;
  for (const SeriesFit& s : fit.series) used += s.cls.has_value();
  const std::string logs =
      std::to_string(o.logs.size()) + (o.logs.size() == 1 ? " nccl-tests log" : " nccl-tests logs");
  out << "calibrated from " << (o.measured.empty() ? logs : o.measured) << ": " << series.size() << " series, " << used
      << " fitted, " << fit.iterations << (fit.iterations == 1 ? " round" : " rounds") << "\n\n";
  using A = TextTable::Align;
  TextTable classes({A::left, A::right, A::right, A::right, A::right, A::right, A::right});
  classes.add({"class", "series", "line rate", "efficiency", "effective", "latency per call", "measured α, β"}, "  ");
  for (const ClassFit& c : fit.classes)
    classes.add({calibration_class_name(c.cls), std::to_string(c.series), format_number(c.line_GBps, 1) + " GB/s",
                 format_number(c.efficiency_before, 3) + " -> " + format_number(c.efficiency_after, 4) +
                     (c.clamped ? " (limit)" : ""),
                 format_number(c.line_GBps * c.efficiency_after, 2) + " GB/s", format_duration(c.latency_us * 1e-6),
                 format_duration(c.alpha_us * 1e-6) + ", " + format_number(c.beta_GBps, 2) + " GB/s"},
                "  ");
  out << classes.str() << "\n";
  TextTable t({A::left, A::left, A::left, A::right, A::right, A::right, A::right});
  t.add({"series", "class", "algorithm", "α measured", "α model", "β measured", "β model"}, "  ");
  for (const SeriesFit& s : fit.series) {
    const std::string& label = series[s.series].label;
    if (!s.cls) {
      t.add({label, "-", "-", "not fitted: " + s.why_not, "", "", ""}, "  ");
      continue;
    }
    t.add({label, calibration_class_name(*s.cls), s.algorithm + (s.channel_bound ? " (channel cap)" : ""),
           format_duration(s.measured.alpha_us * 1e-6), format_duration(s.after.alpha_us * 1e-6),
           format_number(s.measured.beta_GBps, 2) + " GB/s", format_number(s.after.beta_GBps, 2) + " GB/s"},
          "  ");
  }
  out << "fits of time = α + size / β, measured and by the calibrated model:\n" << t.str();
  if (!run.held.empty()) {
    out << "\nheld out (predicted with the result; error = predicted / measured - 1):\n";
    TextTable h({A::right, A::right, A::right});
    h.add({"size", "series", "median error"}, "  ");
    std::vector<double> sizes;
    for (const HeldSize& s : run.held) sizes.push_back(s.bytes);
    const SizeUnits units = size_units_of(sizes);
    for (const HeldSize& s : run.held)
      h.add({format_bytes(s.bytes, units), std::to_string(s.series), percent(s.median_error)}, "  ");
    out << h.str() << (run.failed ? "FAILED" : "OK") << ": tolerance " << format_number(100 * o.tolerance, 0) << "%\n";
  }
  for (const std::string& n : fit.notes) out << "note: " << n << "\n";
  if (written.empty())
    out << "\nnot written: give -o FILE to write the overlay\n";
  else
    out << "\nwrote " << written << ": apply it with --calibration " << written << "\n";
  return out.str();
}

}  // namespace topoplan

#include "observe/observe_job_text.h"

#include <sstream>

#include "base/text_table.h"
#include "base/units.h"

namespace topoplan {
namespace {

std::string optional_count(const std::optional<double>& x) { return x ? format_number(*x, 0) : "-"; }

std::string rate_text(const std::optional<double>& GBps) { return GBps ? format_rate_gbit(*GBps) : "-"; }

std::string verdicts_text(const LinkObservation& o) {
  std::string s;
  for (LinkVerdict v : o.verdicts) s += (s.empty() ? "" : ", ") + std::string(to_string(v));
  return s.empty() ? "ok" : s;
}

}  // namespace

std::string observe_job_text(const Cluster& c, const std::string& cluster_spec, const ObserveJob& r,
                             size_t counter_files) {
  const JobScore& score = r.score;
  std::ostringstream text;
  text << score.job << " on " << cluster_spec << ", layout " << score.layout << ": step "
       << format_duration(r.options.step_s)
       << (r.step_measured ? " (measured; the model's " + format_duration(r.options.model_step_s) + ")"
                           : " (the model's; --step-s for the measured one)")
       << "\n"
       << r.ports << " port" << (r.ports == 1 ? "" : "s") << " from " << counter_files << " file"
       << (counter_files == 1 ? "" : "s") << ", predicted = the job's bytes per step / step; "
       << "flagged beyond " << format_number(r.options.tolerance, 2) << "x either way\n\n";
  using A = TextTable::Align;
  TextTable t({A::left, A::left, A::right, A::right, A::right, A::right, A::right, A::right, A::right, A::left});
  t.add({"link", "counter", "observed", "predicted", "ratio", "job peak", "discards", "wait", "pause", "verdict"},
        "  ");
  for (const LinkObservation& row : r.rows)
    t.add({c.edge_name(row.edge), row.counter + (row.transmit ? " tx" : " rx"), rate_text(row.observed_GBps),
           format_rate_gbit(row.predicted_GBps),
           row.ratio() ? format_number(*row.ratio(), *row.ratio() < 0.1 ? 4 : 2) + "x" : "-",
           row.predicted_peak_GBps > 0
               ? format_rate_gbit(row.predicted_peak_GBps) + " " + std::string(phase_window_name(row.peak_phase))
               : "-",
           optional_count(row.discards), optional_count(row.wait), optional_count(row.pause), verdicts_text(row)},
          "  ");
  text << t.str();
  bool any = false;
  for (const LinkObservation& row : r.rows) {
    if (row.verdicts.empty()) continue;
    if (!any) text << "\nflagged:\n";
    any = true;
    for (LinkVerdict v : row.verdicts)
      text << "  [" << to_string(v) << "] " << c.edge_name(row.edge) << " (" << row.counter
           << "): " << verdict_meaning(v) << "\n";
    const std::vector<LinkUser>& on = r.users_of(row.edge);
    if (on.empty()) text << "    the job's groups: none\n";
    for (size_t k = 0; k < on.size() && k < 8; ++k) text << "    " << link_user_text(*r.state, on[k]) << "\n";
    if (on.size() > 8) text << "    and " << on.size() - 8 << " more groups\n";
  }
  for (const LinkObservation& row : r.rows)
    for (const std::string& f : row.counter_flags) text << "  note: " << row.counter << ": " << f << "\n";
  if (!r.unmatched.empty()) {
    text << "\ncounters that name no link of the cluster (--port-map maps them):\n";
    for (const UnmatchedCounter& u : r.unmatched) text << "  " << u.where << ": " << u.reason << "\n";
  }
  text << "\n" << kObserveCorrelation << "\n";
  return text.str();
}

}  // namespace topoplan

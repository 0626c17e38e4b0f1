#include "planner/transfer_beside_job_text.h"

#include <cmath>
#include <sstream>

#include "base/text_table.h"
#include "base/units.h"
#include "topology/transfer_text.h"

namespace topoplan {

namespace {

// Infinite where the job leaves nothing spare.
std::string seconds_text(double s) { return std::isfinite(s) ? format_duration(s) : "never"; }

std::string share_text(double part, double whole) {
  return whole > 0 ? format_number(100 * part / whole, 1) + "%" : "-";
}

}  // namespace

std::string transfer_beside_job_text(const Cluster& c, const TransferBesideJobRequest& req,
                                     const TransferBesideJob& r) {
  std::ostringstream out;
  const JobScore& score = r.score;
  const DciDirection& d = r.directions[0];
  out << format_bytes(req.bytes) << " from " << req.from << " to " << req.to << " beside " << score.job << " (layout "
      << score.layout << ", " << to_string(score.fabric) << " fabric"
      << (score.background.empty() ? "" : ", background " + score.background) << "): step "
      << format_duration(score.step_s) << "\n\n";
  using A = TextTable::Align;
  TextTable t({A::left, A::right, A::right, A::right, A::right, A::right, A::left, A::right, A::right});
  t.add({"DCI", "links", "capacity", "other traffic", "job per step", "job average", "job peak", "spare average",
         "spare at peak"});
  for (const DciDirection& x : r.directions)
    t.add(
        {c.sites()[static_cast<size_t>(x.from_site)] + " -> " + c.sites()[static_cast<size_t>(x.to_site)],
         std::to_string(x.edges.size()), format_rate_gbit(x.capacity_GBps), format_rate_gbit(x.background_GBps),
         format_bytes(x.job_bytes_per_step),
         format_rate_gbit(x.job_avg_GBps) + " (" + share_text(x.job_avg_GBps, x.capacity_GBps) + ")",
         x.job_peak_GBps > 0 ? format_rate_gbit(x.job_peak_GBps) + " (" + share_text(x.job_peak_GBps, x.capacity_GBps) +
                                   ", " + std::string(phase_window_name(x.peak_phase)) + ")"
                             : "-",
         format_rate_gbit(x.spare_avg_GBps()), format_rate_gbit(x.spare_peak_GBps())},
        "  ");
  out << t.str() << "\n";
  const std::string efficiency = transfer_efficiency_text(req.efficiency);
  if (d.job_bytes_per_step <= 0)
    out << "the job sends nothing from " << req.from << " to " << req.to << ": the capacity is the transfer's\n";
  out << "on the spare capacity, the job first: " << seconds_text(r.spare_s) << " at "
      << format_rate_gbit(d.spare_avg_GBps()) << efficiency << " on average";
  if (d.job_peak_GBps > 0)
    out << " (" << format_rate_gbit(d.spare_peak_GBps()) << " while the job's " << phase_window_name(d.peak_phase)
        << " run)";
  out << "\n";
  out << "taking " << format_number(100 * req.share, 0)
      << "% of each link while the job sends (--share): " << seconds_text(r.take_s) << " at "
      << format_rate_gbit(r.take_GBps) << efficiency << "; the job's step " << format_duration(score.step_s) << " -> "
      << format_duration(r.slowed_step_s) << " (+" << format_number(100 * (r.slowdown - 1), 1) << "%) meanwhile, "
      << seconds_text(r.lost_s) << " of training time lost\n";
  if (r.propagation_s > 0)
    out << "  both include propagation " << format_duration(r.propagation_s) << " over "
        << format_number(d.length_km, 1) << " km\n";
  if (req.every_s)
    out << "every " << format_duration(*req.every_s)
        << " (--every): " << format_number(100 * r.every_share_of_capacity, 2)
        << "% of the link's capacity on average; done before the next one "
        << (r.spare_s <= *req.every_s  ? "on the spare capacity"
            : r.take_s <= *req.every_s ? "only by taking its share"
                                       : "in neither way: the copies pile up")
        << "\n";
  if (score.fabric == FabricMode::shared && score.background.empty())
    out << "other jobs' traffic on the DCI is not counted: give --background with what they use\n";
  return out.str();
}

}  // namespace topoplan

#include "planner/transfer_beside_job.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "topology/transfer.h"

namespace topoplan {

namespace {

// transfer_estimate's time, infinite at no rate (a job that leaves nothing spare).
double seconds_at(double bytes, double rate_GBps, double efficiency, double length_km) {
  return rate_GBps > 0 ? transfer_estimate(bytes, rate_GBps, efficiency, length_km).seconds
                       : std::numeric_limits<double>::infinity();
}

}  // namespace

Result<TransferBesideJob> transfer_beside_job(const JobInputs& in, const TransferBesideJobRequest& req) {
  const Cluster& c = in.cluster;
  const ScoreOptions& options = in.model.options;
  Result<std::unique_ptr<ScoreState>> state = ScoreState::make(c, *in.router, in.job, in.layout, options);
  if (!state) return Error{req.job_where + ": " + state.error()};
  Result<JobScore> score = score_report(c, *in.router, in.job, **state, options);
  if (!score) return Error{req.job_where + ": " + score.error()};
  Result<std::array<DciDirection, 2>> dirs = dci_directions(c, **state, *score, options.background, req.from, req.to);
  RETURN_IF_ERROR(dirs);
  TransferBesideJob r;
  r.score = std::move(*score);
  r.directions = std::move(*dirs);
  const DciDirection& d = r.directions[0];
  r.propagation_s = d.length_km * kFibreUsPerKm * 1e-6;
  if (req.every_s)
    r.every_share_of_capacity = transfer_share_of_capacity(req.bytes, req.efficiency, *req.every_s, d.capacity_GBps);

  // The transfer takes `share` of each link while the job sends, and whatever the job leaves
  // otherwise: the job's step under that share, and the transfer's rate beside the slower job.
  const Background taken = background_with_transfer(options.background, (*state)->share(), d.edges, req.share);
  ScoreOptions taking = options;
  taking.background = &taken;
  Result<JobScore> slowed = score_job(c, *in.router, in.job, in.layout, taking);
  if (!slowed) return Error{req.job_where + ": " + slowed.error()};
  r.slowed_step_s = slowed->step_s;
  const double job_avg_taking_GBps = slowed->step_s > 0 ? d.job_bytes_per_step / slowed->step_s / 1e9 : 0;
  r.take_GBps = std::max(0.0, d.capacity_GBps - d.background_GBps - job_avg_taking_GBps);
  r.spare_s = seconds_at(req.bytes, d.spare_avg_GBps(), req.efficiency, d.length_km);
  r.take_s = seconds_at(req.bytes, r.take_GBps, req.efficiency, d.length_km);
  r.slowdown = r.score.step_s > 0 ? slowed->step_s / r.score.step_s : 1;
  // Each step the transfer overlaps is that much longer.
  r.lost_s = std::isfinite(r.take_s) ? r.take_s * (1 - 1 / r.slowdown) : r.take_s;
  return r;
}

}  // namespace topoplan

// A bulk transfer between two sites beside a job whose own traffic crosses the same DCI links:
// its time on what the job leaves free, and the job's slowdown while the transfer takes a share of
// the links instead (planner/dci_headroom.h; docs/model.md, "Transfers beside a job").
#pragma once

#include <array>
#include <optional>
#include <string>

#include "planner/dci_headroom.h"
#include "planner/job_inputs.h"

namespace topoplan {

struct TransferBesideJobRequest {
  double bytes = 0;
  double efficiency = 1;          // useful fraction of the line rate
  std::string from, to;           // sites
  double share = 0.5;             // of each DCI link the transfer takes while the job sends
  std::optional<double> every_s;  // a recurring transfer's period
  std::string job_where;          // names the job in the scorer's errors
};

struct TransferBesideJob {
  JobScore score;                          // the job alone
  std::array<DciDirection, 2> directions;  // from -> to first
  double propagation_s = 0;
  // On the spare capacity, the job first; infinite (never) where the job leaves none.
  double spare_s = 0;
  // Taking `share` while the job sends: the transfer's rate and time, the job's step meanwhile.
  double take_GBps = 0, take_s = 0;
  double slowed_step_s = 0;
  double slowdown = 1;                 // slowed_step_s over the job's step alone
  double lost_s = 0;                   // training time lost while the transfer runs
  double every_share_of_capacity = 0;  // with every_s: transfer_share_of_capacity on the DCI
};

// Errors: the sites (dci_directions) or the scorer (prefixed with request.job_where).
Result<TransferBesideJob> transfer_beside_job(const JobInputs& in, const TransferBesideJobRequest& request);

}  // namespace topoplan

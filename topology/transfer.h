// Ideal bulk-transfer time between facilities: bytes over a rate, plus propagation.
#pragma once

namespace topoplan {

struct TransferEstimate {
  double bytes = 0;
  double rate_GBps = 0;   // line rate
  double efficiency = 1;  // fraction of the line rate that is useful payload
  double seconds = 0;     // bytes / (rate x efficiency) + propagation
  double propagation_s = 0;
};

TransferEstimate transfer_estimate(double bytes, double rate_GBps, double efficiency, double length_km);
// Useful line rate (Gbit/s) needed to move `bytes` within `deadline_s`, at this efficiency.
double transfer_required_gbit_s(double bytes, double deadline_s, double efficiency, double length_km);
// A transfer repeated every `period_s` (a checkpoint): its average part of a link of `rate_GBps`,
// line bytes included.
double transfer_share_of_capacity(double bytes, double efficiency, double period_s, double rate_GBps);

}  // namespace topoplan

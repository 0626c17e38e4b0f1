#include "topology/transfer.h"

#include "topology/cluster.h"

namespace topoplan {

TransferEstimate transfer_estimate(double bytes, double rate_GBps, double efficiency, double length_km) {
  TransferEstimate t{bytes, rate_GBps, efficiency, 0, length_km * kFibreUsPerKm * 1e-6};
  t.seconds = bytes / (rate_GBps * 1e9 * efficiency) + t.propagation_s;
  return t;
}

double transfer_required_gbit_s(double bytes, double deadline_s, double efficiency, double length_km) {
  double usable_s = deadline_s - length_km * kFibreUsPerKm * 1e-6;
  if (usable_s <= 0) return 0;  // the caller reports that the deadline is below the propagation delay
  return bytes * 8 / 1e9 / usable_s / efficiency;
}

double transfer_share_of_capacity(double bytes, double efficiency, double period_s, double rate_GBps) {
  return bytes / efficiency / (period_s * rate_GBps * 1e9);
}

}  // namespace topoplan

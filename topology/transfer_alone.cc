#include "topology/transfer_alone.h"

#include "base/limits.h"
#include "base/units.h"
#include "topology/load.h"
#include "topology/summary.h"

namespace topoplan {

Result<TransferAlone> transfer_alone(const TransferAloneRequest& req) {
  TransferAlone a{req.bytes, req.efficiency, req.length_km};
  double rate_GBps = 0;
  if (!req.rate.empty()) {
    Result<double> r = parse_rate_GBps(req.rate);
    if (!r) return Error{"--rate: " + r.error()};
    rate_GBps = *r;
  } else if (!req.cluster.empty()) {
    if (req.from.empty() || req.to.empty()) return Error{"--cluster needs --from SITE and --to SITE"};
    Result<Cluster> c = cluster_load(req.cluster);
    if (!c) return Error{c.error()};
    Result<SiteLink> link = site_link(*c, req.from, req.to);
    if (!link) return Error{link.error()};
    rate_GBps = link->GBps;
    a.length_km = link->length_km;
    a.via = std::to_string(link->links) + " DCI links " + req.from + " -> " + req.to;
  }
  if (req.every_s && rate_GBps <= 0) return Error{"--every needs the rate: --rate or --cluster"};
  if (rate_GBps > 0) {
    a.estimate = transfer_estimate(req.bytes, rate_GBps, req.efficiency, a.length_km);
    if (!(a.estimate->seconds <= limits::kMaxSeconds))
      return Error{"moving " + format_bytes(req.bytes) + " at " + format_rate_gbit(rate_GBps * req.efficiency) +
                   " would take more than 1000 years; check --size and the rate"};
  }
  if (req.every_s) {
    a.every_s = req.every_s;
    a.every_share = transfer_share_of_capacity(req.bytes, req.efficiency, *req.every_s, rate_GBps);
  }
  if (!req.deadline.empty()) {
    Result<double> d = parse_duration_s(req.deadline);
    if (!d) return Error{"--deadline: " + d.error()};
    a.deadline_s = *d;
    a.required_gbit_s = transfer_required_gbit_s(req.bytes, a.deadline_s, req.efficiency, a.length_km);
    if (a.required_gbit_s <= 0) return Error{"--deadline: shorter than the propagation delay alone"};
  }
  return a;
}

}  // namespace topoplan

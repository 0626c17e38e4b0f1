#include "cost/peer_path.h"

#include <algorithm>
#include <map>

#include "base/units.h"
#include "cost/nccl_tuning.h"
#include "topology/route_text.h"

namespace topoplan {
namespace {

bool switch_to_switch(const Cluster& c, EdgeId e) {
  return is_fabric(c.device(c.source(e)).kind) && is_fabric(c.device(c.target(e)).kind);
}

// "h001/nic0 -> leaf0 -> spine3 -> leaf1": the switches a connection crosses.
std::string chain_text(const Cluster& c, const Route& r) {
  std::string s = r.src_nic == kNoVertex ? "" : c.device(r.src_nic).name;
  for (const Hop& h : r.hops)
    if (c.link(h.edge).kind == LinkKind::NET || c.link(h.edge).kind == LinkKind::DCI)
      s += " -> " + c.device(c.target(h.edge)).name;
  return s;
}

}  // namespace

Result<PeerPath> peer_path(const Router& router, VertexId a, VertexId b, NicPolicy nic) {
  const Cluster& c = router.cluster();
  Result<Route> even = router.route(a, b, {nic});
  RETURN_IF_ERROR(even);
  PeerPath out{std::move(*even)};
  if (c.routing.mode == Routing::adaptive || out.route.src_nic == kNoVertex) return out;
  const int n = nccl_tuning_default().p2p_net_channels_per_peer;
  std::map<EdgeId, double> share;
  for (int k = 0; k < n; ++k) {
    Result<Route> r = router.route(a, b, {nic, false, static_cast<uint32_t>(k)});
    RETURN_IF_ERROR(r);
    for (const Hop& h : r->hops)
      if (switch_to_switch(c, h.edge)) share[h.edge] += 1.0 / n;
    out.connections.push_back(std::move(*r));
  }
  for (auto [e, x] : share)
    if (x > out.share) out.busiest = e, out.share = x;
  for (const Hop& h : out.route.hops)
    if (switch_to_switch(c, h.edge)) out.even_share = std::max(out.even_share, h.share);
  return out;
}

std::string peer_path_text(const Cluster& c, const PeerPath& p, bool all) {
  const Route& r = p.route;
  std::string out = c.device(r.src).name + " -> " + c.device(r.dst).name + ": " + std::string(to_string(r.path_class));
  if (!r.hops.empty()) out += ", bottleneck " + format_number(r.bw_GBps, 2) + " GB/s at " + c.edge_name(r.bottleneck);
  out += ", latency " + format_number(r.latency_us, 2) + " us";
  if (r.paths > 1) out += ", " + format_number(r.paths, 0) + " equal-cost paths";
  out += "\nrouting: " + routing_text(c.routing) + "\n" + route_text(c, r, all);
  if (p.connections.empty()) return out;
  out += "the " + std::to_string(p.connections.size()) + " connections NCCL opens to a remote peer, as " +
         std::string(to_string(c.routing.mode)) + " routing places them:\n";
  for (size_t k = 0; k < p.connections.size(); ++k)
    out += "  connection " + std::to_string(k) + ": " + chain_text(c, p.connections[k]) + "\n";
  if (p.share > 0)
    out += "  busiest switch link " + c.edge_name(p.busiest) + ": " + format_number(p.share, 4) +
           " of the bytes (split evenly, the most on any such link is " + format_number(p.even_share, 4) + ")\n";
  return out;
}

}  // namespace topoplan

#include "cost/peer_path_json.h"

#include "topology/summary.h"

namespace topoplan {
namespace {

nlohmann::json route_json(const Cluster& c, const Route& r) {
  nlohmann::json j;
  j["src"] = c.device(r.src).name;
  j["dst"] = c.device(r.dst).name;
  j["class"] = std::string(to_string(r.path_class));
  j["bw_GBps"] = r.bw_GBps;
  j["latency_us"] = r.latency_us;
  j["paths"] = r.paths;
  if (!r.hops.empty()) j["bottleneck"] = c.edge_name(r.bottleneck);
  if (r.src_nic != kNoVertex) j["src_nic"] = c.device(r.src_nic).name;
  if (r.dst_nic != kNoVertex) j["dst_nic"] = c.device(r.dst_nic).name;
  j["hops"] = nlohmann::json::array();
  for (const Hop& h : r.hops) {
    const Link& l = c.link(h.edge);
    j["hops"].push_back({{"from", c.device(c.source(h.edge)).name},
                         {"to", c.device(c.target(h.edge)).name},
                         {"kind", std::string(to_string(l.kind))},
                         {"bw_GBps", l.bw_GBps},
                         {"latency_us", l.latency_us},
                         {"share", h.share}});
  }
  return j;
}

}  // namespace

nlohmann::json peer_path_json(const Cluster& c, const PeerPath& p) {
  nlohmann::json j = route_json(c, p.route);
  j["routing"] = routing_json(c.routing);
  if (p.connections.empty()) return j;
  j["connections"] = nlohmann::json::array();
  for (const Route& x : p.connections) j["connections"].push_back(route_json(c, x));
  j["busiest_switch_link"] = {{"link", c.edge_name(p.busiest)}, {"share", p.share}, {"even_share", p.even_share}};
  return j;
}

}  // namespace topoplan

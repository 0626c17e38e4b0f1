#include "topology/degraded.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "base/words.h"
#include "base/units.h"
#include "topology/formats/json.h"

namespace topoplan {

Result<Degraded> cluster_degraded(const Cluster& c, const std::vector<std::string>& entries) {
  Degraded out;
  std::map<EdgeId, double> rate_of;  // forward edge (even id) -> its new rate
  for (const std::string& raw : entries) {
    const std::string entry(trim(raw));
    const size_t eq = entry.rfind('=');
    if (eq == std::string::npos || eq == 0)
      return Error{"--degraded: '" + entry + "': expected NAME=RATE (h001/nic0=200Gbps, leaf0<->spine3=25GB/s)"};
    const std::string name(trim(std::string_view(entry).substr(0, eq)));
    Result<double> rate = parse_rate_GBps(trim(std::string_view(entry).substr(eq + 1)));
    if (!rate) return Error{"--degraded: " + name + ": " + rate.error()};
    std::vector<EdgeId> edges;  // forward ids
    auto add = [&](EdgeId e) { edges.push_back(e & ~EdgeId{1}); };
    if (const size_t arrow = name.find("<->"); arrow != std::string::npos) {
      const std::string a(trim(std::string_view(name).substr(0, arrow))), b(trim(std::string_view(name).substr(arrow + 3)));
      const std::optional<VertexId> va = c.find(a), vb = c.find(b);
      if (!va || !vb) return Error{"--degraded: no device '" + (va ? b : a) + "'"};
      for (EdgeId e : c.out_edges(*va))
        if (c.target(e) == *vb) add(e);
      if (edges.empty()) return Error{"--degraded: '" + a + "' and '" + b + "' are not linked"};
    } else if (const std::optional<VertexId> v = c.find(name); v && c.device(*v).kind == DeviceKind::nic) {
      for (EdgeId e : c.out_edges(*v))
        if (c.link(e).kind == LinkKind::NET) add(e);
      if (edges.empty()) return Error{"--degraded: NIC '" + name + "' has no cable to the fabric"};
    } else {
      return Error{"--degraded: '" + name + "': expected a NIC or a cable as A<->B (topo show --names lists them)"};
    }
    for (EdgeId e : edges) {
      if (*rate >= c.link(e).bw_GBps)
        return Error{"--degraded: " + name + ": " + format_rate_gbit(*rate) + " is not below the port's " +
                     format_rate_gbit(c.link(e).bw_GBps)};
      rate_of[e] = *rate;
    }
    // A NIC, or a cable from a host's NIC, slows that host.
    for (EdgeId e : edges)
      for (VertexId end : {c.source(e), c.target(e)})
        if (c.device(end).kind == DeviceKind::nic && c.device(end).host >= 0 &&
            std::find(out.hosts.begin(), out.hosts.end(), c.device(end).host) == out.hosts.end())
          out.hosts.push_back(c.device(end).host);
    out.names.push_back(entry);
  }
  // The explicit graph lists every physical link once, forward ids in order: rewrite those rates.
  nlohmann::json doc = nlohmann::json::parse(save_cluster_json(c));
  for (const auto& [e, rate] : rate_of) doc["links"][e / 2]["bw_GBps"] = rate;
  Result<Cluster> built = cluster_from_json(doc, "--degraded");
  RETURN_IF_ERROR(built);
  out.cluster = std::move(*built);
  return out;
}

}  // namespace topoplan

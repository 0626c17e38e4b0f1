#include "planner/links_csv.h"

#include <sstream>

#include "topology/locality.h"

namespace topoplan {

std::string links_csv(const Cluster& c, const JobScore& s) {
  std::ostringstream f;
  std::vector<const LinkUse*> by_edge(c.num_edges(), nullptr);
  for (const LinkUse& u : s.links) by_edge[u.edge] = &u;
  f << "link,from,to,kind,tier,bw_GBps,bytes_forward,bytes_reverse,utilization_forward,utilization_reverse,"
       "peak_utilization_forward,peak_utilization_reverse\n";
  for (EdgeId e = 0; e < c.num_edges(); e += 2) {
    const LinkUse *fw = by_edge[e], *rv = by_edge[e + 1];
    if (!fw && !rv) continue;
    f << c.edge_name(e) << "," << c.device(c.source(e)).name << "," << c.device(c.target(e)).name << ","
      << to_string(c.link(e).kind) << "," << link_tier(c, e) << "," << c.link(e).bw_GBps << "," << (fw ? fw->bytes : 0)
      << "," << (rv ? rv->bytes : 0) << "," << (fw ? fw->utilization : 0) << "," << (rv ? rv->utilization : 0) << ","
      << (fw ? fw->peak : 0) << "," << (rv ? rv->peak : 0) << "\n";
  }
  return f.str();
}

}  // namespace topoplan

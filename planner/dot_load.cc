#include "planner/dot_load.h"

namespace topoplan {

DotLoad dot_load_of(const Cluster& c, const JobScore& s, const std::string& title) {
  DotLoad load;
  load.utilization.assign(c.num_edges(), 0);
  for (const LinkUse& u : s.links) load.utilization[u.edge] = u.utilization;
  load.title = title;
  return load;
}

}  // namespace topoplan

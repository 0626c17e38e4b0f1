#include "planner/emit/placement.h"

namespace topoplan {

Result<RankPlacement> placement_of(const EmitInput& in) {
  const Cluster& c = in.cluster;
  const int world = in.layout.world_size();
  if (world != job_ranks(in.job))
    return Error{"the layout places " + std::to_string(world) + " ranks, job '" + in.job.name + "' has " +
                 std::to_string(job_ranks(in.job))};
  RankPlacement p;
  p.ranks.resize(static_cast<size_t>(world));
  p.ranks_on.assign(c.hosts().size(), 0);
  std::vector<int> owner(c.num_devices(), -1);
  for (int r = 0; r < world; ++r) {
    VertexId v = in.layout.gpu_of_rank[static_cast<size_t>(r)];
    if (v >= c.num_devices() || c.device(v).kind != DeviceKind::gpu || c.device(v).host < 0 ||
        c.device(v).local_index < 0)
      return Error{"rank " + std::to_string(r) + " is not on a GPU of a host"};
    if (owner[v] >= 0)
      return Error{"ranks " + std::to_string(owner[v]) + " and " + std::to_string(r) + " share GPU " +
                   c.device(v).name};
    owner[v] = r;
    const Device& d = c.device(v);
    p.ranks[static_cast<size_t>(r)] = {v, d.host, d.local_index};
    if (p.ranks_on[static_cast<size_t>(d.host)]++ == 0) p.hosts.push_back(d.host);
  }
  return p;
}

bool placement_local_order_is_identity(const RankPlacement& placement) {
  std::vector<int> seen(placement.ranks_on.size(), 0);
  for (const RankPlace& r : placement.ranks)
    if (r.cuda_ordinal != seen[static_cast<size_t>(r.host)]++) return false;
  return true;
}

std::string_view local_name(const Device& device) {
  std::string_view name = device.name;
  size_t slash = name.rfind('/');
  return slash == std::string_view::npos ? name : name.substr(slash + 1);
}

}  // namespace topoplan

#include <algorithm>
#include <string>

#include "base/hostlist.h"
#include "base/sort_unique.h"
#include "planner/emit/formats.h"
#include "planner/emit/preamble.h"

namespace topoplan {

// One line per rank: its host, then the variables that pin it to the planned GPU and NIC.
// NCCL_IB_HCA takes the NIC's RDMA device name, which the cluster knows where an import kept it
// or a preset documents it (Cluster::hca_name); "nic0", the model's own name, matches no device,
// and a variable that matches none is worse than none, so such ranks go without it.
// A leading '=' makes the names exact rather than prefixes (src/transport/net_ib.cc, searchExact),
// so "mlx5_1" does not also select mlx5_10.
EmitResult emit_env(const EmitInput& in, const RankPlacement& placement) {
  const Cluster& c = in.cluster;
  std::string lines;
  std::vector<std::string> unnamed;  // hosts with a rank whose NIC has no known name
  for (size_t r = 0; r < placement.ranks.size(); ++r) {
    const RankPlace& place = placement.ranks[r];
    const std::string& host = c.hosts()[static_cast<size_t>(place.host)].name;
    lines += std::to_string(r) + " " + host + " CUDA_VISIBLE_DEVICES=" + std::to_string(place.cuda_ordinal);
    const VertexId nic = in.router.nic_for(place.gpu);
    const std::string_view hca = nic == kNoVertex ? std::string_view() : c.hca_name(nic);
    if (!hca.empty())
      lines += " NCCL_IB_HCA==" + std::string(hca);
    else if (nic != kNoVertex && (unnamed.empty() || unnamed.back() != host))
      unnamed.push_back(host);
    lines += "\n";
  }
  EmittedFile file{"ranks.env", emit_preamble("env", in, placement)};
  file.text += "# RANK HOST VARIABLES...: each rank sees only its planned GPU (as CUDA device 0) and uses one NIC\n";
  if (!unnamed.empty()) {
    sort_unique(unnamed);
    const std::string note =
        "NCCL_IB_HCA left out on " + hostlist_compress(unnamed) +
        ": the cluster does not know the RDMA device names of their NICs (import the server's NCCL "
        "topology or hwloc XML, or give the hosts' nic_names in the cluster file)";
    file.text += "# " + note + "\n";
    file.notes.push_back(note);
  }
  file.text += lines;
  return std::vector<EmittedFile>{std::move(file)};
}

}  // namespace topoplan

#include "planner/emit/torchrun_nodes.h"

namespace topoplan {
namespace {

std::string alternatives() {
  return "; use slurm-hostfile (srun --distribution=arbitrary) or ompi-rankfile (mpirun --rankfile), which place "
         "every rank on its own";
}

}  // namespace

Result<TorchrunNodes> torchrun_nodes(const EmitInput& in, const RankPlacement& placement, std::string_view format) {
  const std::vector<Host>& hosts = in.cluster.hosts();
  auto host_name = [&](int h) { return hosts[static_cast<size_t>(h)].name; };
  const std::string cannot = std::string(format) + " cannot express this layout: ";
  TorchrunNodes nodes;
  nodes.hosts = placement.hosts;
  nodes.nproc = placement.ranks_on[static_cast<size_t>(placement.hosts[0])];
  for (int h : placement.hosts)
    if (placement.ranks_on[static_cast<size_t>(h)] != nodes.nproc)
      return Error{cannot + host_name(placement.hosts[0]) + " runs " + std::to_string(nodes.nproc) + " ranks, " +
                   host_name(h) + " " + std::to_string(placement.ranks_on[static_cast<size_t>(h)]) +
                   ", and torchrun starts the same --nproc-per-node on every node" + alternatives()};
  for (int r = 0; r < static_cast<int>(placement.ranks.size()); ++r) {
    const int node = r / nodes.nproc, expected = placement.hosts[static_cast<size_t>(node)];
    if (placement.ranks[static_cast<size_t>(r)].host != expected)
      return Error{cannot + "rank " + std::to_string(r) + " is on " +
                   host_name(placement.ranks[static_cast<size_t>(r)].host) + ", but torchrun gives node " +
                   std::to_string(node) + " (" + host_name(expected) + ") the contiguous ranks " +
                   std::to_string(node * nodes.nproc) + "-" + std::to_string(node * nodes.nproc + nodes.nproc - 1) +
                   alternatives()};
  }
  for (size_t node = 0; node < nodes.hosts.size(); ++node) {
    std::string devices;
    for (int k = 0; k < nodes.nproc; ++k)
      devices += (k ? "," : "") +
                 std::to_string(
                     placement.ranks[node * static_cast<size_t>(nodes.nproc) + static_cast<size_t>(k)].cuda_ordinal);
    nodes.devices.push_back(std::move(devices));
  }
  return nodes;
}

}  // namespace topoplan

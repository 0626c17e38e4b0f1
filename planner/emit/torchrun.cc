#include <string>

#include "planner/emit/formats.h"
#include "planner/emit/preamble.h"

namespace topoplan {
namespace {

std::string alternatives() {
  return "; use slurm-hostfile (srun --distribution=arbitrary) or ompi-rankfile (mpirun --rankfile), which place "
         "every rank on its own";
}

}  // namespace

// torchrun (torch/distributed/run.py) with its default static rendezvous: --node-rank is the
// agent's group rank, and the agent gives its workers the global ranks that follow those of every
// lower node (elastic agent _assign_worker_ranks), the same --nproc-per-node on every node. Local
// rank k runs on CUDA device k, i.e. the k-th entry of CUDA_VISIBLE_DEVICES. So a host must hold one
// contiguous block of ranks, all hosts the same number.
EmitResult emit_torchrun(const EmitInput& in, const RankPlacement& placement) {
  const std::vector<Host>& hosts = in.cluster.hosts();
  auto host_name = [&](int h) { return hosts[static_cast<size_t>(h)].name; };
  const int nnodes = static_cast<int>(placement.hosts.size());
  const int nproc = placement.ranks_on[static_cast<size_t>(placement.hosts[0])];
  for (int h : placement.hosts)
    if (placement.ranks_on[static_cast<size_t>(h)] != nproc)
      return Error{"torchrun cannot express this layout: " + host_name(placement.hosts[0]) + " runs " +
                   std::to_string(nproc) + " ranks, " + host_name(h) + " " +
                   std::to_string(placement.ranks_on[static_cast<size_t>(h)]) +
                   ", and torchrun starts the same --nproc-per-node on every node" + alternatives()};
  for (int r = 0; r < static_cast<int>(placement.ranks.size()); ++r) {
    const int node = r / nproc, expected = placement.hosts[static_cast<size_t>(node)];
    if (placement.ranks[static_cast<size_t>(r)].host != expected)
      return Error{"torchrun cannot express this layout: rank " + std::to_string(r) + " is on " +
                   host_name(placement.ranks[static_cast<size_t>(r)].host) + ", but torchrun gives node " +
                   std::to_string(node) + " (" + host_name(expected) + ") the contiguous ranks " +
                   std::to_string(node * nproc) + "-" + std::to_string(node * nproc + nproc - 1) + alternatives()};
  }

  std::string text = emit_preamble("torchrun", in, placement);
  text += "# HOST: the command for that host (rendezvous on the host of rank 0); append the training script\n";
  const std::string master = host_name(placement.hosts[0]);
  for (int node = 0; node < nnodes; ++node) {
    std::string devices;
    for (int k = 0; k < nproc; ++k)
      devices += (k ? "," : "") + std::to_string(placement.ranks[static_cast<size_t>(node * nproc + k)].cuda_ordinal);
    text += host_name(placement.hosts[static_cast<size_t>(node)]) + ": CUDA_VISIBLE_DEVICES=" + devices +
            " torchrun --nnodes=" + std::to_string(nnodes) + " --node-rank=" + std::to_string(node) +
            " --nproc-per-node=" + std::to_string(nproc) + " --master-addr=" + master + "\n";
  }
  return std::vector<EmittedFile>{{"torchrun.txt", std::move(text)}};
}

}  // namespace topoplan

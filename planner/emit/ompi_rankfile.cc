#include <string>

#include "planner/emit/cpu_binding.h"
#include "planner/emit/formats.h"
#include "planner/emit/preamble.h"

namespace topoplan {

// Two files: the rankfile, one "rank N=HOST slot=LIST" line per rank, and a hostfile giving every
// host as many slots as it runs ranks (orterun(1) "Specifying Host Nodes": "aa slots=2"). Both
// lexers (orte/mca/rmaps/rank_file/rmaps_rank_file_lex.l, orte/util/hostfile/hostfile_lex.l) treat
// '#' to the end of the line as a comment.
EmitResult emit_ompi_rankfile(const EmitInput& in, const RankPlacement& placement) {
  const Cluster& c = in.cluster;
  const std::string preamble = emit_preamble("ompi-rankfile", in, placement);
  const std::string ranks = std::to_string(placement.ranks.size());

  std::string rankfile = preamble;
  rankfile +=
      "# launch: mpirun -np " + ranks + " --hostfile ompi.hostfile --rankfile ompi.rankfile --report-bindings APP\n";
  rankfile +=
      "# slot=SOCKET:FIRST-LAST binds to those logical cores of that socket (as lstopo numbers them), the\n"
      "# GPU's NUMA node's cores shared among its GPUs; SOCKET:* the whole socket (core count unknown);\n"
      "# S* every socket, i.e. unbound (the GPU reaches no CPU in the cluster graph)\n";
  // Open MPI gives the ranks on a node local ranks in rank order; a job that takes the GPU of its
  // local rank then needs the per-rank CUDA_VISIBLE_DEVICES to land on a permuted plan.
  if (!placement_local_order_is_identity(placement))
    rankfile += "# the plan orders GPUs within a host: give each rank its CUDA_VISIBLE_DEVICES from ranks.env\n";
  const std::vector<std::string> slots = ompi_rank_slots(c, placement);
  for (size_t r = 0; r < placement.ranks.size(); ++r)
    rankfile += "rank " + std::to_string(r) + "=" + c.hosts()[static_cast<size_t>(placement.ranks[r].host)].name +
                " slot=" + slots[r] + "\n";

  std::string hostfile = preamble;
  for (int h : placement.hosts)
    hostfile += c.hosts()[static_cast<size_t>(h)].name +
                " slots=" + std::to_string(placement.ranks_on[static_cast<size_t>(h)]) + "\n";
  return std::vector<EmittedFile>{{"ompi.rankfile", std::move(rankfile)}, {"ompi.hostfile", std::move(hostfile)}};
}

}  // namespace topoplan

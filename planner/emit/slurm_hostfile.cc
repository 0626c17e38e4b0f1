#include "planner/emit/formats.h"
#include "planner/emit/preamble.h"

namespace topoplan {

// srun(1), --distribution=arbitrary: "allocate processes in-order as listed in file designated by
// the environment variable SLURM_HOSTFILE", one host per line. Slurm's reader (slurm_read_hostfile
// in src/api/allocate.c, since Slurm 1.0) drops everything after '#' and skips empty lines, so the
// preamble can stay in the file.
EmitResult emit_slurm_hostfile(const EmitInput& in, const RankPlacement& placement) {
  std::string text = emit_preamble("slurm-hostfile", in, placement);
  text += "# launch: SLURM_HOSTFILE=slurm.hostfile srun --distribution=arbitrary --ntasks=" +
          std::to_string(placement.ranks.size()) + " APP\n";
  // The file fixes each rank's host only; which GPU a rank takes is up to the job (its local rank).
  if (!placement_local_order_is_identity(placement))
    text += "# the plan orders GPUs within a host: give each rank its CUDA_VISIBLE_DEVICES from ranks.env\n";
  for (const RankPlace& r : placement.ranks) text += in.cluster.hosts()[static_cast<size_t>(r.host)].name + "\n";
  return std::vector<EmittedFile>{{"slurm.hostfile", std::move(text)}};
}

}  // namespace topoplan

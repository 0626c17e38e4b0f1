// The emitters behind emit(), one per file, each given a checked RankPlacement. Internal to
// planner/emit/; users call emit() with a format name.
#pragma once

#include <vector>

#include "planner/emit/placement.h"

namespace topoplan {

using EmitResult = Result<std::vector<EmittedFile>>;

EmitResult emit_slurm_hostfile(const EmitInput& in, const RankPlacement& placement);
EmitResult emit_ompi_rankfile(const EmitInput& in, const RankPlacement& placement);
EmitResult emit_torchrun(const EmitInput& in, const RankPlacement& placement);
EmitResult emit_megatron(const EmitInput& in, const RankPlacement& placement);
EmitResult emit_env(const EmitInput& in, const RankPlacement& placement);
EmitResult emit_jobset(const EmitInput& in, const RankPlacement& placement);
EmitResult emit_pytorchjob(const EmitInput& in, const RankPlacement& placement);
EmitResult emit_mpijob(const EmitInput& in, const RankPlacement& placement);

}  // namespace topoplan

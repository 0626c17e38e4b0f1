// Where each rank runs: a rank -> GPU map. The default puts rank r on the r-th GPU in host-major
// order (what `srun` with a block distribution and CUDA_VISIBLE_DEVICES in local-rank order
// give); a layout file lets a user review the placement a scheduler proposed.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "topology/cluster.h"

namespace topoplan {

struct Layout {
  std::vector<VertexId> gpu_of_rank;
  std::string source;  // "default" or the file
  // From a plan file: the order string the ranks were placed under ("" = the job's) and the
  // devices and links it avoided (--exclude), by name.
  std::string order;
  std::vector<std::string> down;
  // From a host list: the file line of each rank (explain names the lines; a line may place many
  // ranks); else empty.
  std::vector<int> line_of_rank;
  int world_size() const { return static_cast<int>(gpu_of_rank.size()); }
};

// Ranks 0..world-1 on the first `world` GPUs, host-major. An error when the cluster is smaller.
Result<Layout> layout_default(const Cluster& cluster, int world);

// A layout file (docs/layout-formats.md), either
//  - JSON: {"ranks": [{"rank": 0, "host": "h001", "gpu": 3}, ...]} (gpu = the host's local index,
//    cuda_ordinal order) or {"ranks": ["h001/gpu3", ...]} (rank = position), or
//  - a plan file (planner/plan_json.h), whose order string and exclusions come with it, or
//  - a host list in rank order, a line `HOSTS [slots=N]` with HOSTS a hostlist expression
//    (base/hostlist.h): each name one rank, as in SLURM_HOSTFILE for --distribution=arbitrary,
//    or with slots=N, N consecutive ranks on each name in turn, as Open MPI maps a hostfile by
//    slot. A host's ranks take its GPUs in order, across lines; '#' starts a comment, or
//  - what `plan --emit` writes besides: Open MPI's rankfile (`rank N=HOST slot=LIST`, the k-th rank
//    of a host on its GPU k), ranks.env (`RANK HOST CUDA_VISIBLE_DEVICES=N ...`) and torchrun.txt
//    (`HOST: CUDA_VISIBLE_DEVICES=LIST torchrun --nnodes ... --node-rank ... --nproc-per-node ...`),
//    told apart by their first line (planner/layout_formats/).
// Every rank 0..world-1 exactly once, every GPU at most once; errors name the file and line, and
// a file that places more than `world` ranks fails at the line that does. `world` 0: as many
// ranks as the file places (at most the cluster's GPUs).
Result<Layout> layout_load(const std::string& path, const Cluster& cluster, int world);
Result<Layout> layout_parse(const std::string& text, const std::string& where, const Cluster& cluster, int world);

// The "ranks" list of a JSON layout or plan file, checked and completed: each entry a "host/gpuN"
// name or an object with the keys `item_keys` allows. Errors name `where` and the entry.
Result<Layout> layout_from_ranks(const nlohmann::json& ranks, const std::vector<std::string>& item_keys,
                                 const std::string& where, const Cluster& cluster, int world);

}  // namespace topoplan

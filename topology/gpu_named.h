// A GPU as a command names it: by name ("h001/gpu3") or by global index in host-major order
// ("11"), the order `collective --gpus` and the layouts count in.
#pragma once

#include <string>

#include "base/error.h"
#include "topology/cluster.h"

namespace topoplan {

// An unknown name is an error with "did you mean"; an index past the last GPU says how many there are.
Result<VertexId> gpu_named(const Cluster& cluster, const std::string& text);

}  // namespace topoplan

// The CPU cores a rank should run on: the NUMA node (cpu vertex) its GPU hangs off and, when the
// node type gives a core count, an even share of that node's cores among the GPUs attached to it,
// so that ranks on one socket do not compete for the same cores. Internal to planner/emit/.
#pragma once

#include <string>
#include <vector>

#include "planner/emit/placement.h"
#include "topology/cluster.h"

namespace topoplan {

struct CpuBinding {
  int socket = -1;  // position in Host::cpus (one socket per NUMA node, as in every preset); -1: none
  int first_core = -1, last_core = -1;  // logical cores counted within the socket; -1: the whole socket
};

// One per GPU of the host, by local index. A GPU's NUMA node is the cpu vertex nearest to it over
// PCIe and C2C links (ties to the lower socket); cores come from the host's node type, so explicit
// graphs without one get whole sockets.
std::vector<CpuBinding> cpu_bindings(const Cluster& cluster, int host);

// A slot list as Open MPI 4.1's rankfile reads it (orterun(1) "Rankfiles"; parsed by
// opal_hwloc_base_cpu_list_parse in opal/mca/hwloc/base/hwloc_base_util.c). Indexes are logical,
// as hwloc's lstopo numbers them, and cores count within their socket: "1:0-13" is cores 0 to 13
// of socket 1, "1:*" every core of socket 1, and "S*" every socket, i.e. no binding.
std::string ompi_slot_list(const CpuBinding& binding);

// Every rank's slot list, by rank: its GPU's binding, the bindings made once per host.
std::vector<std::string> ompi_rank_slots(const Cluster& cluster, const RankPlacement& placement);

}  // namespace topoplan

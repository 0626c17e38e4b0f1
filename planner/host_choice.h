// Which hosts a job runs on when more are free than it needs: the smallest unit of the fabric
// tree (an NVLink domain, a leaf group, a pod, a site) that holds enough, and inside it the
// fewest, fullest children, the way topology-aware schedulers (Slurm's topology/tree) fit jobs.
// Whole hosts (no GPU, NIC or NIC cable down) are taken first, others only when needed.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "topology/down.h"
#include "topology/locality.h"

namespace topoplan {

struct HostChoice {
  std::vector<int> hosts;            // in topology order: site, pod, leaf group, domain, host index
  int gpus = 0;                      // up GPUs on them
  std::array<int, kLevels> spans{};  // units spanned per Level (hosts, domains, leaf groups, ...)
  std::string why;                   // one sentence for people
  bool partial_hosts = false;        // some chosen host has a GPU down
};

// `free`: the hosts the scheduler offers, in its order; `gpus` the job needs. An error names what
// is short ("the job needs 128 GPUs; the 15 free hosts have 120 up").
Result<HostChoice> hosts_choose(const Cluster& cluster, const Locality& locality, const DownSet& down,
                                const std::vector<int>& free, int gpus);

// The hosts offered: `free`, or every host of the cluster when it is empty.
std::vector<int> hosts_offered(const Cluster& cluster, const std::vector<int>& free);

// Sorts hosts into topology order (site, pod, leaf group, domain, host index).
void hosts_sort(const Locality& locality, std::vector<int>& hosts);

// Host indices of `names` (--nodes), in the order given; an unknown name (with a close one) or one
// listed twice is an error.
Result<std::vector<int>> hosts_by_name(const Cluster& cluster, const std::vector<std::string>& names);

}  // namespace topoplan

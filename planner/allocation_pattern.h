// When two allocations plan alike. The planner sees hosts only through the links their traffic
// crosses, so two allocations that a symmetry of the fabric maps onto each other plan to the same
// step. The symmetries checked here: hosts all alike, and the hosts of one leaf group reaching the
// same leaves NIC by NIC, so that any host of a leaf group may stand for another; and, where the
// leaf groups of a pod are wired alike above, any leaf group of the pod for another. A pattern
// names each host's site and pod, and its leaf group (by its order of appearance and size where
// leaf groups may stand for each other), and its NVLink domain by order and size. Pods are not
// assumed alike, nor are leaf groups whose leaves reach the spines unevenly (threetier-h100: some
// leaf-spine links doubled, others single); routed by hash or statically, paths depend on the
// hosts themselves, and every allocation is its own pattern. advise --candidates plans one
// allocation per pattern.
#pragma once

#include <string>
#include <vector>

#include "planner/score_state.h"
#include "topology/down.h"

namespace topoplan {

class AllocationPatterns {
 public:
  AllocationPatterns(const Cluster& cluster, const Locality& locality, const DownSet& down,
                     const ScoreOptions& options);

  // Empty when allocations with one pattern plan alike; else why each is planned on its own.
  const std::string& why_not() const { return why_not_; }
  // Whether the leaf groups of a pod may stand for each other; else why not.
  const std::string& groups_why_not() const { return groups_why_not_; }
  // The pattern of `hosts` (in topology order, as hosts_choose gives them); "" when why_not().
  std::string key(const std::vector<int>& hosts) const;

 private:
  const Locality& loc_;
  std::string why_not_, groups_why_not_;
  // Hosts per unit, by Level and unit id: the cluster's, not the allocation's.
  std::vector<std::vector<int>> unit_hosts_;
};

}  // namespace topoplan

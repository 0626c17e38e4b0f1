#include <string>

#include "base/yaml_text.h"
#include "planner/emit/formats.h"
#include "planner/emit/kubernetes_pods.h"

namespace topoplan {

// A JobSet (jobset.x-k8s.io/v1alpha2) of two replicated jobs: "node-0", one pod pinned to node
// rank 0's host, where torchrun's static rendezvous listens; "workers", an indexed job of one pod
// on each other planned host. A pod finds its node rank by the node it landed on, so the map from
// pods to hosts cannot go wrong whatever index lands where. JobSet gives pods the DNS names
// JOBSET-RJOB-JOBINDEX-PODINDEX.SUBDOMAIN (the subdomain the JobSet's name). Kueue places both
// pod sets in one domain of the plan's level (podset-group-name, Kueue 0.13 and later).
EmitResult emit_jobset(const EmitInput& in, const RankPlacement& placement) {
  Result<TorchrunNodes> torchrun = torchrun_nodes(in, placement, "jobset (torchrun in each pod)");
  RETURN_IF_ERROR(torchrun);
  Result<K8sPlan> plan = k8s_plan(in, placement, "jobset");
  RETURN_IF_ERROR(plan);
  const std::string master = plan->name + "-node-0-0-0." + plan->name;
  Manifest replicated = Manifest::array();
  auto add = [&](const std::string& name, const std::vector<size_t>& nodes) -> Result<void> {
    Result<Manifest> pod = k8s_torchrun_pod(in, *plan, *torchrun, nodes, "trainer", master, kTorchrunPort);
    RETURN_IF_ERROR(pod);
    if (plan->hosts.size() > 1 && !plan->kueue_level.empty())
      (*pod)["metadata"]["annotations"]["kueue.x-k8s.io/podset-group-name"] = plan->name;
    const int pods = static_cast<int>(nodes.size());
    replicated.push_back({{"name", name},
                          {"replicas", 1},
                          {"template",
                           {{"spec",
                             {{"completionMode", "Indexed"},
                              {"completions", pods},
                              {"parallelism", pods},
                              {"backoffLimit", 0},
                              {"template", std::move(*pod)}}}}}});
    return {};
  };
  RETURN_IF_ERROR(add("node-0", {0}));
  if (plan->hosts.size() > 1) RETURN_IF_ERROR(add("workers", k8s_nodes(*plan, 1)));
  Manifest jobset = {{"apiVersion", "jobset.x-k8s.io/v1alpha2"},
                     {"kind", "JobSet"},
                     {"metadata", k8s_object_metadata(in, *plan)},
                     {"spec",
                      {{"network", {{"enableDNSHostnames", true}, {"subdomain", plan->name}}},
                       {"failurePolicy", {{"maxRestarts", 0}}},
                       {"replicatedJobs", std::move(replicated)}}}};
  std::string text = k8s_preamble("jobset", in, placement, *plan);
  text += "# apply: kubectl apply -f jobset.yaml (with JobSet's controller installed)\n";
  return std::vector<EmittedFile>{{"jobset.yaml", text + yaml_text(jobset)}};
}

}  // namespace topoplan

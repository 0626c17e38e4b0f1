#include <string>

#include "base/yaml_text.h"
#include "planner/emit/formats.h"
#include "planner/emit/kubernetes_pods.h"

namespace topoplan {

// A Kubeflow PyTorchJob (kubeflow.org/v1, the training operator 1.x): the Master pod pinned to node
// rank 0's host, where torchrun's static rendezvous listens, and one Worker pod on each other
// planned host. The operator sets MASTER_ADDR (the Master's service, JOB-master-0) and MASTER_PORT
// in every pod; its RANK and PET_NODE_RANK follow replica indexes, which Kubernetes does not tie
// to hosts, so each pod takes its node rank from the node it landed on and passes it to torchrun,
// whose flags win over PET_ variables. The operator finds its containers by the name "pytorch".
EmitResult emit_pytorchjob(const EmitInput& in, const RankPlacement& placement) {
  Result<TorchrunNodes> torchrun = torchrun_nodes(in, placement, "pytorchjob (torchrun in each pod)");
  RETURN_IF_ERROR(torchrun);
  Result<K8sPlan> plan = k8s_plan(in, placement, "pytorchjob");
  RETURN_IF_ERROR(plan);
  Manifest replicas;
  auto add = [&](const std::string& type, const std::vector<size_t>& nodes) -> Result<void> {
    Result<Manifest> pod =
        k8s_torchrun_pod(in, *plan, *torchrun, nodes, "pytorch", "\"$MASTER_ADDR\"", "\"$MASTER_PORT\"");
    RETURN_IF_ERROR(pod);
    replicas[type] = {
        {"replicas", static_cast<int>(nodes.size())}, {"restartPolicy", "Never"}, {"template", std::move(*pod)}};
    return {};
  };
  RETURN_IF_ERROR(add("Master", {0}));
  if (plan->hosts.size() > 1) RETURN_IF_ERROR(add("Worker", k8s_nodes(*plan, 1)));
  Manifest job = {{"apiVersion", "kubeflow.org/v1"},
                  {"kind", "PyTorchJob"},
                  {"metadata", k8s_object_metadata(in, *plan)},
                  {"spec",
                   {{"nprocPerNode", std::to_string(torchrun->nproc)},
                    {"runPolicy", {{"backoffLimit", 0}}},
                    {"pytorchReplicaSpecs", std::move(replicas)}}}};
  std::string text = k8s_preamble("pytorchjob", in, placement, *plan);
  text += "# apply: kubectl apply -f pytorchjob.yaml (with Kubeflow's training operator 1.x installed)\n";
  return std::vector<EmittedFile>{{"pytorchjob.yaml", text + yaml_text(job)}};
}

}  // namespace topoplan

// The Kubernetes manifests read back as the cluster would run them: every pod set's hosts from its
// node affinity, and each pod's script run with the node it would land on, under a stand-in
// torchrun or mpirun that shows what it was given; together the pods must start every rank on its
// planned GPU, once. tests/k8s/ checks the same files against the API's schemas.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "planner/emit/emit.h"

namespace topoplan::test {

struct K8sPodSet {
  std::string name;
  int pods = 0;
  YAML::Node pod;  // the pod template
};

// A JobSet's replicated jobs, or a PyTorchJob's or MPIJob's replica types.
std::vector<K8sPodSet> k8s_pod_sets(const YAML::Node& doc);

// Checks the manifest starts every rank of `in` once on its planned GPU, each pod set's hosts
// carrying the labels it selects on, and a pod on a node the plan lacks stopping (an MPIJob's
// launcher, when a worker is on one).
void check_k8s_runs_as_planned(const std::string& text, const EmitInput& in);

}  // namespace topoplan::test

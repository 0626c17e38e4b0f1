// What the Kubernetes manifests of one plan share (jobset, pytorchjob, mpijob): the pods' names,
// the node affinity that puts a pod on its planned hosts, the Kueue annotations and the container
// that starts the ranks. Internal to planner/emit/; docs/plan-outputs.md, "Kubernetes".
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "planner/emit/placement.h"
#include "planner/emit/torchrun_nodes.h"

namespace topoplan {

using Manifest = nlohmann::ordered_json;

// torchrun's default rendezvous port, where the manifests' torch.distributed meets.
inline constexpr const char* kTorchrunPort = "29500";

// The labels every pod selects on are those `topo export --format k8s-labels` writes by default.
struct K8sPlan {
  std::string name;        // the object name: the job's name as a DNS label
  std::vector<int> hosts;  // by node rank (placement.hosts)
  // Each host's labels (key, value), by node rank, nearest level first; every host has every key.
  std::vector<std::vector<std::pair<std::string, std::string>>> labels;
  // The nearest level whose one value every planned host shares: Kueue's required topology, so
  // Kueue admits the job only where the plan put it. "" when the hosts share none.
  std::string kueue_level;
};

// An error when the launch lacks an image or a command (the manifests run nothing without them).
Result<K8sPlan> k8s_plan(const EmitInput& in, const RankPlacement& placement, std::string_view format);

// A pod's metadata: the instance label (what pod anti-affinity matches), and Kueue's topology
// annotation where the plan has a level.
Manifest k8s_pod_metadata(const K8sPlan& plan);

// Required node affinity to the hosts of `nodes` (node ranks) by kubernetes.io/hostname and by
// every topology label those hosts carry; with more than one host, pod anti-affinity on the
// instance label too, so each pod takes a host of its own.
Manifest k8s_affinity(const Cluster& cluster, const K8sPlan& plan, const std::vector<size_t>& nodes);

// The metadata of the top object: its name, and Kueue's queue label where one is given.
Manifest k8s_object_metadata(const EmitInput& in, const K8sPlan& plan);

// NODE_NAME from the downward API: the node the pod landed on.
Manifest k8s_node_name_env();

// A pod template for the pods of `nodes` (node ranks; one pod per host): each asks for every GPU of
// its host, so no other pod shares it, and runs `command` in one container named `container`.
// An error when those hosts differ in GPU count (one template asks one count).
Result<Manifest> k8s_pod_template(const EmitInput& in, const K8sPlan& plan, const std::vector<size_t>& nodes,
                                  const std::string& container, const std::vector<std::string>& command,
                                  const Manifest& env);

// The template of the pods of `nodes` that start their ranks with torchrun: a container named
// `container` whose script finds the pod's node rank by NODE_NAME, fails naming the node when the
// plan does not hold it, and execs torchrun's static rendezvous on `master_addr`:`master_port`
// (shell words, "$MASTER_ADDR" allowed) with that node's CUDA_VISIBLE_DEVICES and the launch's
// command (sh -c SCRIPT sh COMMAND...).
Result<Manifest> k8s_torchrun_pod(const EmitInput& in, const K8sPlan& plan, const TorchrunNodes& torchrun,
                                  const std::vector<size_t>& nodes, const std::string& container,
                                  const std::string& master_addr, const std::string& master_port);

// Node ranks `first` to the last.
std::vector<size_t> k8s_nodes(const K8sPlan& plan, size_t first);

// The head comment of every manifest: the plan it was written from, how to apply it, and what
// the pods select on.
std::string k8s_preamble(std::string_view format, const EmitInput& in, const RankPlacement& placement,
                         const K8sPlan& plan);

}  // namespace topoplan

#include "planner/emit/kubernetes_pods.h"

#include <algorithm>
#include <set>

#include "base/shell_words.h"
#include "planner/emit/preamble.h"
#include "topology/formats/kubernetes.h"
#include "topology/summary.h"

namespace topoplan {
namespace {

// The object's name leaves room in every name derived from it for the 63 characters of a DNS
// label: JobSet's pod host names ("NAME-node-12345-0-0"), the operators' pods ("NAME-worker-12345").
constexpr size_t kNameChars = 40;
constexpr const char* kInstanceLabel = "app.kubernetes.io/instance";
// Kueue's topology-aware scheduling (kueue.x-k8s.io, "Topology Aware Scheduling").
constexpr const char* kKueueRequired = "kueue.x-k8s.io/podset-required-topology";
constexpr const char* kKueueQueue = "kueue.x-k8s.io/queue-name";

Manifest in_values(const std::string& key, const std::vector<std::string>& values) {
  return {{"key", key}, {"operator", "In"}, {"values", values}};
}

// The values the hosts of `nodes` give label `key`, sorted, each once.
std::vector<std::string> label_values(const K8sPlan& plan, const std::vector<size_t>& nodes, const std::string& key) {
  std::set<std::string> values;
  for (size_t node : nodes)
    for (const auto& kv : plan.labels[node])
      if (kv.first == key) values.insert(kv.second);
  return {values.begin(), values.end()};
}

}  // namespace

Result<K8sPlan> k8s_plan(const EmitInput& in, const RankPlacement& placement, std::string_view format) {
  RETURN_IF_ERROR(emit_launch_check(format, in.launch));
  K8sPlan plan;
  std::string name = k8s_object_name(in.job.name, "job");
  if (name.size() > kNameChars) name.resize(kNameChars);
  while (name.back() == '-') name.pop_back();
  plan.name = name;
  plan.hosts = placement.hosts;
  auto labels = k8s_host_labels(in.cluster, K8sLabels::topograph);
  for (int h : plan.hosts) plan.labels.push_back(std::move(labels[static_cast<size_t>(h)]));
  const std::vector<size_t> all = k8s_nodes(plan, 0);
  for (const auto& kv : plan.labels.front())
    if (label_values(plan, all, kv.first).size() == 1) {
      plan.kueue_level = kv.first;
      break;
    }
  return plan;
}

Manifest k8s_pod_metadata(const K8sPlan& plan) {
  Manifest m = {{"labels", {{kInstanceLabel, plan.name}}}};
  if (!plan.kueue_level.empty()) m["annotations"] = {{kKueueRequired, plan.kueue_level}};
  return m;
}

Manifest k8s_affinity(const Cluster& c, const K8sPlan& plan, const std::vector<size_t>& nodes) {
  std::vector<std::string> names;
  for (size_t node : nodes) names.push_back(c.hosts()[static_cast<size_t>(plan.hosts[node])].name);
  Manifest match = Manifest::array({in_values("kubernetes.io/hostname", names)});
  for (const auto& kv : plan.labels.front()) match.push_back(in_values(kv.first, label_values(plan, nodes, kv.first)));
  Manifest affinity = {
      {"nodeAffinity",
       {{"requiredDuringSchedulingIgnoredDuringExecution", {{"nodeSelectorTerms", {{{"matchExpressions", match}}}}}}}}};
  if (nodes.size() > 1)
    affinity["podAntiAffinity"] = {{"requiredDuringSchedulingIgnoredDuringExecution",
                                    {{{"labelSelector", {{"matchLabels", {{kInstanceLabel, plan.name}}}}},
                                      {"topologyKey", "kubernetes.io/hostname"}}}}};
  return affinity;
}

Manifest k8s_object_metadata(const EmitInput& in, const K8sPlan& plan) {
  Manifest m = {{"name", plan.name}};
  if (!in.launch.queue.empty()) m["labels"] = {{kKueueQueue, in.launch.queue}};
  return m;
}

Manifest k8s_node_name_env() {
  return {{"name", "NODE_NAME"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "spec.nodeName"}}}}}};
}

Result<Manifest> k8s_pod_template(const EmitInput& in, const K8sPlan& plan, const std::vector<size_t>& nodes,
                                  const std::string& container, const std::vector<std::string>& command,
                                  const Manifest& env) {
  std::vector<int> hosts;
  for (size_t node : nodes) hosts.push_back(plan.hosts[node]);
  const int gpus = gpus_on(in.cluster, {hosts.front()});
  for (int h : hosts)
    if (gpus_on(in.cluster, {h}) != gpus)
      return Error{"the pods of one template ask one GPU count, but " +
                   in.cluster.hosts()[static_cast<size_t>(h)].name + " has " +
                   std::to_string(gpus_on(in.cluster, {h})) + " GPUs and " +
                   in.cluster.hosts()[static_cast<size_t>(hosts.front())].name + " " + std::to_string(gpus)};
  Manifest c = {{"name", container},
                {"image", in.launch.image},
                {"command", command},
                {"env", env},
                {"resources", {{"limits", {{"nvidia.com/gpu", gpus}}}}}};
  return Manifest{{"metadata", k8s_pod_metadata(plan)},
                  {"spec",
                   {{"restartPolicy", "Never"},
                    {"affinity", k8s_affinity(in.cluster, plan, nodes)},
                    {"containers", Manifest::array({std::move(c)})}}}};
}

Result<Manifest> k8s_torchrun_pod(const EmitInput& in, const K8sPlan& plan, const TorchrunNodes& torchrun,
                                  const std::vector<size_t>& nodes, const std::string& container,
                                  const std::string& master_addr, const std::string& master_port) {
  std::string script = "case \"$NODE_NAME\" in\n";
  for (size_t node : nodes)
    script += shell_word(in.cluster.hosts()[static_cast<size_t>(plan.hosts[node])].name) +
              ") NODE_RANK=" + std::to_string(node) + " CUDA_VISIBLE_DEVICES=" + torchrun.devices[node] + " ;;\n";
  script +=
      "*) echo \"topoplan: this pod runs on node '$NODE_NAME', which the plan does not hold\" >&2; exit 1 ;;\n"
      "esac\n"
      "export CUDA_VISIBLE_DEVICES\n"
      "exec torchrun --nnodes=" +
      std::to_string(plan.hosts.size()) +
      " --node-rank=\"$NODE_RANK\" --nproc-per-node=" + std::to_string(torchrun.nproc) +
      " --master-addr=" + master_addr + " --master-port=" + master_port + " --no-python \"$@\"\n";
  std::vector<std::string> words = {"sh", "-c", script, "sh"};
  words.insert(words.end(), in.launch.command.begin(), in.launch.command.end());
  return k8s_pod_template(in, plan, nodes, container, words, Manifest::array({k8s_node_name_env()}));
}

std::vector<size_t> k8s_nodes(const K8sPlan& plan, size_t first) {
  std::vector<size_t> nodes;
  for (size_t node = first; node < plan.hosts.size(); ++node) nodes.push_back(node);
  return nodes;
}

std::string k8s_preamble(std::string_view format, const EmitInput& in, const RankPlacement& placement,
                         const K8sPlan& plan) {
  std::string s = emit_preamble(format, in, placement);
  s += "# pods select on kubernetes.io/hostname and the labels of `topoplan topo export --format k8s-labels`\n";
  if (!plan.kueue_level.empty())
    s += "# Kueue admits the pods only within one " + plan.kueue_level + " (the nearest level holding every host)\n";
  return s;
}

}  // namespace topoplan

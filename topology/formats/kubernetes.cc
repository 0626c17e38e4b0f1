#include "topology/formats/kubernetes.h"
#include "base/words.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <sstream>
#include <vector>

namespace topoplan {
namespace {

// Topograph's label keys (NVIDIA/topograph, docs/k8s.md), from the host upward.
constexpr const char* kTopographPrefix = "network.topology.nvidia.com/";
constexpr const char* kTopographLevels[] = {"block", "spine", "datacenter"};
// Numbered tiers: far more than any fabric has (a leaf, a spine, a core, a super-spine).
constexpr size_t kMaxTiers = 16;

size_t max_levels(K8sLabels scheme) { return scheme == K8sLabels::topograph ? std::size(kTopographLevels) : kMaxTiers; }

// The key of switch level i (0: the host's leaf).
std::string switch_key(K8sLabels scheme, size_t i) {
  if (scheme == K8sLabels::topograph) return std::string(kTopographPrefix) + kTopographLevels[i];
  return "fabric.topograph.run/tier-" + std::to_string(i + 1);
}

std::string domain_key(K8sLabels scheme) {
  return scheme == K8sLabels::topograph ? std::string(kTopographPrefix) + "accelerator"
                                        : "accelerator.topograph.run/domain";
}

std::string scheme_name(K8sLabels scheme) {
  return scheme == K8sLabels::topograph ? "NVIDIA topograph's scheme" : "numbered tiers";
}

// A label value: at most 63 characters of [A-Za-z0-9._-], starting and ending alphanumeric
// (Kubernetes' label syntax); other characters ("siteA/leaf0") become '-'.
std::string label_value(const std::string& name) {
  std::string v;
  for (char ch : name)
    v += std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' || ch == '-' ? ch : '-';
  if (v.size() > 63) v = v.substr(v.size() - 63);
  while (!v.empty() && !std::isalnum(static_cast<unsigned char>(v.front()))) v.erase(v.begin());
  while (!v.empty() && !std::isalnum(static_cast<unsigned char>(v.back()))) v.pop_back();
  return v;
}

// The switches above a host, one per level up to `levels`: its first NIC's leaf, then each
// switch's first neighbour one tier up in its site.
std::vector<VertexId> switch_chain(const Cluster& c, const Host& h, size_t levels) {
  std::vector<VertexId> chain;
  if (h.nics.empty()) return chain;
  for (EdgeId e : c.out_edges(h.nics.front()))
    if (is_fabric(c.device(c.target(e)).kind)) {
      chain.push_back(c.target(e));
      break;
    }
  while (!chain.empty() && chain.size() < levels) {
    const VertexId at = chain.back();
    VertexId up = kNoVertex;
    for (EdgeId e : c.out_edges(at)) {
      const Device& d = c.device(c.target(e));
      if (d.kind == DeviceKind::switch_ && d.tier > c.device(at).tier && d.site == c.device(at).site) {
        up = c.target(e);
        break;
      }
    }
    if (up == kNoVertex) break;
    chain.push_back(up);
  }
  return chain;
}

bool domains_span_hosts(const Cluster& c) {
  std::vector<int> hosts(c.domains().size());
  for (const Host& h : c.hosts())
    if (h.scaleup_domain >= 0 && ++hosts[static_cast<size_t>(h.scaleup_domain)] > 1) return true;
  return false;
}

// Every host's chain, cut to the levels every host has (the shortest chain), so every level is
// set on every node.
std::vector<std::vector<VertexId>> switch_chains(const Cluster& c, K8sLabels scheme) {
  std::vector<std::vector<VertexId>> chains;
  size_t n = max_levels(scheme);
  for (const Host& h : c.hosts()) {
    chains.push_back(switch_chain(c, h, n));
    n = std::min(n, chains.back().size());
  }
  for (std::vector<VertexId>& chain : chains) chain.resize(n);
  return chains;
}

}  // namespace

std::string k8s_object_name(const std::string& name, const std::string& fallback) {
  std::string v = lower(label_value(name));
  std::replace_if(v.begin(), v.end(), [](char ch) { return ch == '.' || ch == '_'; }, '-');
  while (!v.empty() && v.back() == '-') v.pop_back();
  return v.empty() ? fallback : v;
}

std::vector<std::vector<std::pair<std::string, std::string>>> k8s_host_labels(const Cluster& c, K8sLabels scheme) {
  const bool accelerator = domains_span_hosts(c);
  const std::vector<std::vector<VertexId>> chains = switch_chains(c, scheme);
  std::vector<std::vector<std::pair<std::string, std::string>>> out(chains.size());
  for (size_t h = 0; h < chains.size(); ++h) {
    const Host& host = c.hosts()[h];
    if (accelerator)
      out[h].emplace_back(domain_key(scheme), label_value(c.domains()[static_cast<size_t>(host.scaleup_domain)]));
    for (size_t i = 0; i < chains[h].size(); ++i)
      out[h].emplace_back(switch_key(scheme, i), label_value(c.device(chains[h][i]).name));
  }
  return out;
}

std::string k8s_labels_write(const Cluster& c, K8sLabels scheme) {
  const auto labels = k8s_host_labels(c, scheme);
  std::ostringstream out;
  out << "# Node labels for " << c.name << " in " << scheme_name(scheme) << " (written by topoplan); run with sh\n";
  for (size_t h = 0; h < labels.size(); ++h) {
    out << "kubectl label node " << c.hosts()[h].name << " --overwrite";
    for (const auto& [key, value] : labels[h]) out << " " << key << "=" << value;
    out << "\n";
  }
  return out.str();
}

std::string kueue_topology_write(const Cluster& c, K8sLabels scheme) {
  std::ostringstream out;
  out << "# Kueue topology-aware scheduling levels for " << c.name << " (written by topoplan), top down\n"
      << "apiVersion: kueue.x-k8s.io/v1alpha1\n"
      << "kind: Topology\n"
      << "metadata:\n"
      << "  name: " << k8s_object_name(c.name, "cluster") << "\n"
      << "spec:\n"
      << "  levels:\n";
  const std::vector<std::string> keys = k8s_level_keys(c, scheme);
  for (auto key = keys.rbegin(); key != keys.rend(); ++key) out << "  - nodeLabel: \"" << *key << "\"\n";
  out << "  - nodeLabel: \"kubernetes.io/hostname\"\n";
  return out.str();
}

std::vector<std::string> k8s_level_keys(const Cluster& c, K8sLabels scheme) {
  std::vector<std::string> keys;
  if (domains_span_hosts(c)) keys.push_back(domain_key(scheme));
  const std::vector<std::vector<VertexId>> chains = switch_chains(c, scheme);
  for (size_t i = 0; i < (chains.empty() ? 0 : chains.front().size()); ++i) keys.push_back(switch_key(scheme, i));
  return keys;
}

}  // namespace topoplan

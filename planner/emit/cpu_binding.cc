#include "planner/emit/cpu_binding.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace topoplan {
namespace {

// Breadth first over PCIe and C2C links, neither through a CPU (the socket link is not the GPU's
// own root) nor through another GPU.
int nearest_socket(const Cluster& c, const Host& h, VertexId gpu) {
  std::vector<VertexId> frontier{gpu}, next;
  std::unordered_set<VertexId> seen{gpu};
  while (!frontier.empty()) {
    int best = -1;
    next.clear();
    for (VertexId v : frontier)
      for (EdgeId e : c.out_edges(v)) {
        LinkKind kind = c.link(e).kind;
        VertexId w = c.target(e);
        if ((kind != LinkKind::PCI && kind != LinkKind::C2C) || !seen.insert(w).second) continue;
        const Device& d = c.device(w);
        if (d.kind == DeviceKind::cpu) {
          auto at = std::find(h.cpus.begin(), h.cpus.end(), w);
          int socket = at == h.cpus.end() ? -1 : static_cast<int>(at - h.cpus.begin());
          if (socket >= 0 && (best < 0 || socket < best)) best = socket;
        } else if (d.kind != DeviceKind::gpu) {
          next.push_back(w);
        }
      }
    if (best >= 0) return best;
    std::swap(frontier, next);
  }
  return -1;
}

}  // namespace

std::vector<CpuBinding> cpu_bindings(const Cluster& cluster, int host) {
  const Host& h = cluster.hosts()[static_cast<size_t>(host)];
  std::vector<CpuBinding> out(h.gpus.size());
  std::vector<std::vector<size_t>> on_socket(h.cpus.size());
  for (size_t g = 0; g < h.gpus.size(); ++g) {
    out[g].socket = nearest_socket(cluster, h, h.gpus[g]);
    if (out[g].socket >= 0) on_socket[static_cast<size_t>(out[g].socket)].push_back(g);
  }
  const int cores = h.cores_per_cpu;
  for (const std::vector<size_t>& gpus : on_socket) {
    const int n = static_cast<int>(gpus.size());
    if (n == 0 || cores < n) continue;  // no share of at least one core each: whole sockets
    for (int j = 0; j < n; ++j) {
      out[gpus[static_cast<size_t>(j)]].first_core = j * cores / n;
      out[gpus[static_cast<size_t>(j)]].last_core = (j + 1) * cores / n - 1;
    }
  }
  return out;
}

std::string ompi_slot_list(const CpuBinding& b) {
  if (b.socket < 0) return "S*";
  std::string socket = std::to_string(b.socket) + ":";
  if (b.first_core < 0) return socket + "*";
  return socket + std::to_string(b.first_core) + "-" + std::to_string(b.last_core);
}

std::vector<std::string> ompi_rank_slots(const Cluster& c, const RankPlacement& placement) {
  std::unordered_map<int, std::vector<CpuBinding>> bindings;  // by host
  std::vector<std::string> slots;
  for (const RankPlace& place : placement.ranks) {
    auto [at, fresh] = bindings.try_emplace(place.host);
    if (fresh) at->second = cpu_bindings(c, place.host);
    slots.push_back(ompi_slot_list(at->second[static_cast<size_t>(place.cuda_ordinal)]));
  }
  return slots;
}

}  // namespace topoplan

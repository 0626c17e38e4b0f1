#include "topology/formats/hwloc_found.h"

#include <sstream>

#include "base/words.h"

namespace topoplan {

std::string hwloc_found_text(const HwlocHost& host, const std::string& label) {
  const NodeFacts& f = host.facts;
  std::ostringstream out;
  out << label << ": " << counted(host.numa_nodes, "NUMA node") << ", " << counted(f.cores, "core")
      << (host.cpu_model.empty() ? "" : " (" + host.cpu_model + ")") << ", "
      << counted(static_cast<int64_t>(f.gpus.size()), "NVIDIA GPU") << ", "
      << counted(static_cast<int64_t>(f.nics.size()), "RDMA NIC");
  for (const NodeFacts::Nic& n : f.nics) out << " " << n.name;
  if (!host.other_nics.empty()) out << "; other network devices, which NCCL's IB transport does not use:";
  for (const std::string& n : host.other_nics) out << " " << n;
  out << "\n";
  if (f.gpus.empty())
    out << "no NVIDIA GPU here, so no node type to write (a machine without GPUs, as CI runs on, has none to "
           "describe)\n";
  return out.str();
}

nlohmann::ordered_json hwloc_found_json(const HwlocHost& host, const std::string& label) {
  const NodeFacts& f = host.facts;
  nlohmann::ordered_json nics = nlohmann::ordered_json::array();
  for (const NodeFacts::Nic& n : f.nics) nics.push_back(n.name);
  nlohmann::ordered_json found = {
      {"numa_nodes", host.numa_nodes}, {"cores", f.cores},  {"cpu_model", host.cpu_model},
      {"gpus", f.gpus.size()},         {"rdma_nics", nics}, {"other_nics", host.other_nics}};
  nlohmann::ordered_json j = {{"source", label}, {"found", found}};
  if (f.gpus.empty()) j["node_type"] = nullptr;
  return j;
}

}  // namespace topoplan

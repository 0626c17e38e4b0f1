// What `topoplan discover` found on a host through hwloc, before the node type it makes: NUMA
// nodes, cores, GPUs and NICs, as text and as the head of its JSON. Without a GPU there is no node
// type, and both say so.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "topology/formats/hwloc.h"

namespace topoplan {

// One line; with no GPU, a second saying there is no node type. `label` names the host or file.
std::string hwloc_found_text(const HwlocHost& host, const std::string& label);
// {"source": label, "found": {...}}, with "node_type": null when there is no GPU.
nlohmann::ordered_json hwloc_found_json(const HwlocHost& host, const std::string& label);

}  // namespace topoplan

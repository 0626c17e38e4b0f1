// One server as a file ("format": "topoplan-node-type", docs/cluster-format.md): what `topoplan
// import` writes from nvidia-smi or NCCL's topology XML, and what a recipe's "node" may hold
// instead of a preset name. Rates carry their units ("400Gbps", "450GB/s").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "topology/node_types.h"

namespace topoplan {

// Reads and checks (node_type_check) a node type; errors name `where` and the field.
Result<NodeType> node_type_from_json(const nlohmann::json& doc, const std::string& where);

// The document node_type_from_json reads back to the same type; absent parts (no NVLink, no C2C)
// are left out.
nlohmann::ordered_json node_type_to_json(const NodeType& type);

}  // namespace topoplan

// The native cluster files (docs/cluster-format.md): a recipe, a few numbers that cluster_build
// expands, or an explicit graph, every device and link listed, which save_cluster_json writes.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "topology/cluster.h"
#include "topology/fabric.h"

namespace topoplan {

// A document with "devices" is an explicit graph, one with "node" a recipe. Errors name the file
// and the field: "lab.json: fabric.nodes_per_su: expected a positive integer, got -3".
Result<Cluster> load_cluster_json(const std::string& path);
// The same for a document already parsed; `where` names it in errors.
Result<Cluster> cluster_from_document(const nlohmann::json& doc, const std::string& where);

// A recipe's keys into a spec; `where` (usually the file name) prefixes every error.
Result<ClusterSpec> recipe_from_json(const nlohmann::json& doc, const std::string& where);

// An explicit graph into a finalized Cluster; `where` prefixes every error.
Result<Cluster> cluster_from_json(const nlohmann::json& doc, const std::string& where);

// The explicit graph, every physical link once, 2-space indent: loading it and saving again gives
// the same bytes.
std::string save_cluster_json(const Cluster& cluster);

}  // namespace topoplan

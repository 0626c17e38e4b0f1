// `topoplan import`'s stage: a server's file with what the options add, as a node type checked by
// building it (or a recipe of N such servers); a fabric's file with a node type, as a cluster.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "topology/formats/import_format.h"
#include "topology/formats/node_facts.h"

namespace topoplan {

// What the options of import and discover say that a server's file may not, as given.
struct NodeHintOptions {
  std::string name, base, gpu_model, cpu_model, nic_rate, pcie_rate, cpu_link_rate, nvlink_rate;
  int nvlinks = -1;
};

// The hints the options give, rates parsed once; `default_name` where --name is not given. --base
// is looked up into `*base`, which the hints point to. Errors name the option.
Result<NodeHints> node_hints_make(const NodeHintOptions& options, const std::string& default_name, NodeType* base);

struct NodeImport {
  NodeTypeInference inferred;
  // The node type as JSON, or with `nodes` > 0 a recipe of that many such servers.
  nlohmann::ordered_json document;
  std::string recipe_name;         // "type:N"
  std::optional<Cluster> cluster;  // the type built (`nodes` of it, at least one); none without NICs
};

// The node type `facts` and `hints` give, built once so that a type that cannot become a cluster
// fails here and not in a later command; a server without NICs is a node type but no cluster, and
// is built only where `nodes` asks for one. Errors on building start with `label`.
Result<NodeImport> node_import(const NodeFacts& facts, const NodeHints& hints, int nodes, const std::string& label);

// A fabric's file with hosts of `node_type` (a preset, a node type file or a server's file), as
// `format` (a fabric's) reads it. `options.type` is filled from `node_type`; errors name the option.
struct FabricImport {
  ClusterImport built;
  NodeType type;
};
Result<FabricImport> fabric_import(const ImportFormat& format, const std::string& path, const std::string& node_type,
                                   ClusterImportOptions options);

// Tier -> switches, leaves (1) first: how an imported fabric is summed up.
std::map<int, int> switches_per_tier(const Cluster& cluster);

}  // namespace topoplan

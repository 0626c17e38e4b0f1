#include "topology/load.h"

#include <charconv>
#include <filesystem>

#include "topology/formats/json.h"

namespace topoplan {

Result<ClusterSpec> preset_spec_parse(const std::string& text) {
  std::string name = text;
  int count = 1;
  if (size_t colon = text.find(':'); colon != std::string::npos) {
    name = text.substr(0, colon);
    std::string n = text.substr(colon + 1);
    auto [ptr, ec] = std::from_chars(n.data(), n.data() + n.size(), count);
    if (ec != std::errc() || ptr != n.data() + n.size() || count <= 0)
      return Error{"cluster '" + text + "': expected NAME:N with N a positive number of nodes, got '" + n + "'"};
  }
  Result<NodeType> type = node_type_named(name);
  if (!type) return Error{"cluster '" + text + "': " + type.error()};
  ClusterSpec spec;
  spec.name = text;
  spec.node = *type;
  spec.nodes = count * type->hosts_per_domain;  // NVL72 specs count racks
  spec.fabric = fabric_default(*type);
  return spec;
}

Result<Cluster> cluster_load(const std::string& spec) {
  std::error_code ec;
  bool looks_like_file = spec.find('/') != std::string::npos || spec.ends_with(".json");
  if (std::filesystem::is_regular_file(spec, ec) || looks_like_file) return load_cluster_json(spec);
  Result<ClusterSpec> parsed = preset_spec_parse(spec);
  if (!parsed) return Error{parsed.error()};
  return cluster_build(*parsed);
}

}  // namespace topoplan

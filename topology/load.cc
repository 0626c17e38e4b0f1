#include "topology/load.h"

#include <charconv>
#include <cstdint>
#include <filesystem>

#include "topology/formats/json.h"
#include "topology/formats/json_fields.h"
#include "topology/formats/node_type_json.h"
#include "topology/limits.h"
#include "topology/units.h"

namespace topoplan {

Result<ClusterSpec> preset_spec_parse(const std::string& text) {
  const size_t colon = text.find(':');
  const std::string name = text.substr(0, colon);
  Result<NodeType> type = node_type_named(name);
  if (!type) return Error{"cluster '" + text + "': " + type.error()};
  // A cluster needs a size, and no size is a natural default: "dgx-h100" alone is more likely a
  // forgotten count than a wish for one server.
  const char* unit = type->hosts_per_domain > 1 ? "racks" : "nodes";
  if (colon == std::string::npos)
    return Error{"cluster '" + text + "': give the number of " + unit + ", e.g. '" + name + ":" +
                 (type->hosts_per_domain > 1 ? "2" : "32") + "' (NAME:N)"};
  const std::string n = text.substr(colon + 1);
  int64_t count = 0;
  auto [ptr, ec] = std::from_chars(n.data(), n.data() + n.size(), count);
  const bool digits = !n.empty() && ptr == n.data() + n.size() && n.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || (ec != std::errc() && ec != std::errc::result_out_of_range) || (ec == std::errc() && count <= 0))
    return Error{"cluster '" + text + "': expected NAME:N with N a positive number of " + unit + ", got '" + n + "'"};
  // Checked here, before the count is multiplied into anything.
  const int64_t per_count = int64_t{type->hosts_per_domain} * type->gpus;
  const int64_t most = limits::kMaxGpus / per_count;
  if (ec == std::errc::result_out_of_range || count > most)
    return Error{"cluster '" + text + "': " + n + " " + unit + " of " + std::to_string(per_count) +
                 " GPUs are more than the limit of " + format_count(limits::kMaxGpus) + " GPUs (" + format_count(most) +
                 " " + unit + ")"};
  ClusterSpec spec;
  spec.name = text;
  spec.node = *type;
  spec.nodes = static_cast<int>(count * type->hosts_per_domain);  // NVL72 specs count racks
  spec.fabric = fabric_default(*type);
  return spec;
}

namespace {

bool names_a_file(const std::string& spec) {
  std::error_code ec;
  return std::filesystem::is_regular_file(spec, ec) || spec.find('/') != std::string::npos || spec.ends_with(".json");
}

}  // namespace

Result<Cluster> cluster_load(const std::string& spec) {
  if (names_a_file(spec)) return load_cluster_json(spec);
  Result<ClusterSpec> parsed = preset_spec_parse(spec);
  if (!parsed) return Error{parsed.error()};
  return cluster_build(*parsed);
}

Result<NodeType> node_type_load(const std::string& spec) {
  if (names_a_file(spec)) {
    Result<nlohmann::json> doc = json_read_file(spec);
    if (!doc) return Error{doc.error()};
    if (doc->is_object() && doc->contains("gpu_model")) return node_type_from_json(*doc, spec);
    if (doc->is_object() && doc->contains("node")) {
      Result<ClusterSpec> recipe = recipe_from_json(*doc, spec);
      if (!recipe) return Error{recipe.error()};
      return recipe->node;
    }
    return Error{spec + ": an explicit graph keeps no node type; give the recipe or the node type file it came from"};
  }
  if (spec.find(':') == std::string::npos) return node_type_named(spec);
  Result<ClusterSpec> preset = preset_spec_parse(spec);
  if (!preset) return Error{preset.error()};
  return preset->node;
}

}  // namespace topoplan

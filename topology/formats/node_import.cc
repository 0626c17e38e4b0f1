#include "topology/formats/node_import.h"

#include <algorithm>

#include "base/limits.h"
#include "base/units.h"
#include "topology/fabric.h"
#include "topology/formats/node_type_json.h"
#include "topology/load.h"

namespace topoplan {

Result<NodeHints> node_hints_make(const NodeHintOptions& o, const std::string& default_name, NodeType* base) {
  NodeHints hints;
  hints.name = o.name.empty() ? default_name : o.name;
  hints.gpu_model = o.gpu_model;
  hints.cpu_model = o.cpu_model;
  hints.nvlinks = o.nvlinks;
  if (!o.base.empty()) {
    Result<NodeType> preset = node_type_named(o.base);
    if (!preset) return Error{"--base: " + preset.error()};
    *base = *preset;
    hints.base = base;
  }
  double nic_GBps = 0;
  for (auto [flag, text, GBps] :
       {std::tuple{"--nic-rate", &o.nic_rate, &nic_GBps}, std::tuple{"--pcie-rate", &o.pcie_rate, &hints.pcie_GBps},
        std::tuple{"--cpu-link-rate", &o.cpu_link_rate, &hints.cpu_link_GBps},
        std::tuple{"--nvlink-rate", &o.nvlink_rate, &hints.nvlink_lane_GBps}}) {
    if (text->empty()) continue;
    Result<double> rate = parse_rate_GBps(*text);
    if (!rate) return Error{std::string(flag) + ": " + rate.error()};
    *GBps = *rate;
  }
  hints.nic_gbit_s = nic_GBps * 8;
  return hints;
}

Result<NodeImport> node_import(const NodeFacts& facts, const NodeHints& hints, int nodes, const std::string& label) {
  Result<NodeTypeInference> inferred = node_type_infer(facts, hints);
  RETURN_IF_ERROR(inferred);
  NodeImport out{std::move(*inferred), {}, {}, std::nullopt};
  const NodeType& type = out.inferred.type;
  ClusterSpec spec;
  spec.node = type;
  spec.nodes = std::max(1, nodes);
  spec.name = type.name + ":" + std::to_string(spec.nodes);
  spec.fabric = fabric_default(type);
  if (type.nics > 0 || nodes > 0) {
    Result<Cluster> built = cluster_build(spec);
    if (!built) return Error{label + ": the node type does not build: " + built.error()};
    out.cluster = std::move(*built);
  }
  out.recipe_name = spec.name;
  out.document = node_type_to_json(type);
  if (nodes > 0) out.document = {{"name", spec.name}, {"node", out.document}, {"nodes", nodes}};
  return out;
}

Result<FabricImport> fabric_import(const ImportFormat& format, const std::string& path, const std::string& node_type,
                                   ClusterImportOptions options) {
  if (node_type.empty())
    return Error{std::string(format.name) + ": give --node-type PRESET or FILE: " + format.display +
                 " names hosts, not what is in them"};
  if (!(options.oversubscription >= 1 && options.oversubscription <= limits::kMaxRatio))
    return Error{"--oversubscription: expected a ratio from 1 to " + format_number(limits::kMaxRatio) + ", got " +
                 format_exact(options.oversubscription)};
  Result<NodeType> type = node_type_load(node_type);
  if (!type) return Error{"--node-type: " + type.error()};
  options.type = *type;
  Result<ClusterImport> built = cluster_import(path, &format, options);
  RETURN_IF_ERROR(built);
  return FabricImport{std::move(*built), std::move(*type)};
}

std::map<int, int> switches_per_tier(const Cluster& c) {
  std::map<int, int> n;
  for (VertexId v = 0; v < c.num_devices(); ++v)
    if (c.device(v).kind == DeviceKind::switch_) ++n[c.device(v).tier];
  return n;
}

}  // namespace topoplan

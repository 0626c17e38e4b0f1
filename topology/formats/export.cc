#include "topology/formats/export.h"

#include "base/name_table.h"
#include "base/suggest.h"
#include "topology/formats/json.h"
#include "topology/formats/nccl_xml.h"
#include "topology/formats/slurm_topology.h"
#include "topology/formats/slurm_yaml.h"
#include "topology/load.h"

namespace topoplan {
namespace {

template <typename Write>
Result<std::string> with_cluster(const std::string& spec, Write write) {
  Result<Cluster> c = cluster_load(spec);
  RETURN_IF_ERROR(c);
  return write(*c);
}

Result<std::string> nccl_xml_export(const std::string& spec, const ExportOptions&) {
  Result<NodeType> type = node_type_load(spec);
  RETURN_IF_ERROR(type);
  if (type->c2c_GBps > 0)
    return Error{type->name + ": Grace trays hang GPUs and NICs off the CPU by C2C; NCCL reads that topology itself"};
  return nccl_topo_xml_write(*type);
}

// The order of --format's help and of its "expected ..." list.
constexpr ExportFormat kFormats[] = {
    {"dot", "Graphviz", ExportTakes::dot_hosts,
     [](const std::string& spec, const ExportOptions& o) {
       return with_cluster(spec, [&](const Cluster& c) { return save_cluster_dot(c, o.dot_hosts); });
     }},
    {"nccl-xml", "one server's NCCL_TOPO_FILE", ExportTakes::nothing, nccl_xml_export},
    {"json", "lossless", ExportTakes::nothing,
     [](const std::string& spec, const ExportOptions&) { return with_cluster(spec, save_cluster_json); }},
    {"slurm-tree", "Slurm's topology.conf, tree plugin", ExportTakes::nothing,
     [](const std::string& spec, const ExportOptions&) { return with_cluster(spec, slurm_tree_write); }},
    {"slurm-block", "Slurm's topology.conf, block plugin", ExportTakes::nothing,
     [](const std::string& spec, const ExportOptions&) { return with_cluster(spec, slurm_block_write); }},
    {"slurm-yaml", "Slurm's topology.yaml, tree and block", ExportTakes::nothing,
     [](const std::string& spec, const ExportOptions&) { return with_cluster(spec, slurm_yaml_write); }},
    {"k8s-labels", "kubectl label lines", ExportTakes::labels,
     [](const std::string& spec, const ExportOptions& o) {
       return with_cluster(spec, [&](const Cluster& c) { return k8s_labels_write(c, o.labels); });
     }},
    {"kueue-topology", "Kueue's Topology object", ExportTakes::labels,
     [](const std::string& spec, const ExportOptions& o) {
       return with_cluster(spec, [&](const Cluster& c) { return kueue_topology_write(c, o.labels); });
     }},
};

}  // namespace

std::span<const ExportFormat> export_formats() { return kFormats; }

Result<const ExportFormat*> export_format_named(std::string_view name) {
  if (const ExportFormat* f = table_find(kFormats, name)) return f;
  const std::vector<std::string> names = table_names(kFormats);
  return Error{"unknown format '" + std::string(name) + "'" + did_you_mean(name, names) + " (expected " +
               names_list(names, " or ") + ")"};
}

std::vector<std::string> export_formats_taking(ExportTakes option) {
  std::vector<std::string> names;
  for (const ExportFormat& f : kFormats)
    if (f.takes == option) names.emplace_back(f.name);
  return names;
}

std::string export_formats_help() {
  std::vector<std::string> entries;
  for (const ExportFormat& f : kFormats) entries.push_back(std::string(f.name) + " (" + f.help + ")");
  return names_list(entries, " or ");
}

namespace {

// A flag that only some formats read is an error with the others, naming those that read it.
Result<void> only_with(const ExportFormat& format, ExportTakes option, const std::string& flag) {
  if (format.takes == option) return {};
  return Error{flag + ": only with --format " + names_list(export_formats_taking(option), " or ")};
}

}  // namespace

Result<std::string> export_write(std::string_view format_name, const std::string& spec, const ExportFlags& flags) {
  Result<const ExportFormat*> format = export_format_named(format_name);
  if (!format) return Error{"--format: " + format.error()};
  ExportOptions options;
  if (!flags.dot_hosts.empty()) {
    RETURN_IF_ERROR(only_with(**format, ExportTakes::dot_hosts, "--dot-hosts"));
    Result<DotHosts> hosts = dot_hosts_parse(flags.dot_hosts);
    RETURN_IF_ERROR(hosts);
    options.dot_hosts = *hosts;
  }
  if (!flags.labels.empty()) {
    RETURN_IF_ERROR(only_with(**format, ExportTakes::labels, "--labels"));
    if (flags.labels == "tiers")
      options.labels = K8sLabels::tiers;
    else if (flags.labels != "topograph")
      return Error{"--labels: unknown scheme '" + flags.labels + "' (expected topograph or tiers)"};
  }
  return (*format)->write(spec, options);
}

}  // namespace topoplan

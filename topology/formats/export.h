// The formats `topo export` writes, one table: a new format is its writer's file plus one row in
// export.cc. --format's help, its check and "did you mean", and which formats read --dot-hosts or
// --labels all come from the table.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "topology/formats/dot.h"
#include "topology/formats/kubernetes.h"

namespace topoplan {

// What a format reads besides the cluster, so that a command can refuse an option the format
// would ignore.
enum class ExportTakes : uint8_t { nothing, dot_hosts, labels };

struct ExportOptions {
  DotHosts dot_hosts = DotHosts::collapse;
  K8sLabels labels = K8sLabels::topograph;
};

struct ExportFormat {
  const char* name;
  const char* help;  // what the format is, for --format's help: "Slurm's topology.conf, tree plugin"
  ExportTakes takes;
  // From a cluster spec (preset, recipe or graph file), loaded as the format needs it: nccl-xml
  // reads the spec as one server's node type, every other format as the whole cluster.
  Result<std::string> (*write)(const std::string& spec, const ExportOptions& options);
};

// In the order help and errors list them.
std::span<const ExportFormat> export_formats();

// "unknown format 'svg' (expected dot, nccl-xml, ... or kueue-topology)", with "did you mean".
Result<const ExportFormat*> export_format_named(std::string_view name);

// The formats that read `option`: {"k8s-labels", "kueue-topology"} for labels.
std::vector<std::string> export_formats_taking(ExportTakes option);

// "dot (Graphviz), nccl-xml (one server's NCCL_TOPO_FILE), ... or kueue-topology (...)".
std::string export_formats_help();

// `topo export`'s --dot-hosts and --labels as given (empty: not given).
struct ExportFlags {
  std::string dot_hosts, labels;
};

// The text `topo export` writes: the flags checked against the format's row (one the format would
// ignore is an error naming those that read it), then its writer.
Result<std::string> export_write(std::string_view format, const std::string& spec, const ExportFlags& flags);

}  // namespace topoplan

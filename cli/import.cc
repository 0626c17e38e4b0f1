// topoplan import: another tool's description of one server as a topoplan node type, or as a
// cluster recipe of N such servers; or a fabric's file with a node type as a whole cluster. The
// formats are the import family's table (topology/formats/import_format.h).
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#include "base/json_fields.h"
#include "cli/tool.h"
#include "topology/formats/hwloc_found.h"
#include "topology/formats/import_format.h"
#include "topology/formats/json.h"
#include "topology/formats/node_import.h"
#include "topology/formats/node_import_text.h"

namespace topoplan::cli {
namespace {

struct Options {
  std::string format, file, output;
  NodeHintOptions hints;
  std::string node_type;        // a fabric's formats
  ClusterImportOptions fabric;  // the same, beside the node type
  int nodes = 0;
  bool json = false;
};

// A fabric's file with a node type: a whole cluster, written as an explicit graph.
int run_fabric(const Options& o, const ImportFormat& format, std::ostream& out, std::ostream& err) {
  Result<FabricImport> imported = fabric_import(format, o.file, o.node_type, o.fabric);
  if (!imported) return fail(err, imported.error());
  Cluster& c = imported->built.cluster;
  if (!o.hints.name.empty()) c.name = o.hints.name;
  if (!o.output.empty())
    if (Result<void> w = text_write_file(o.output, save_cluster_json(c)); !w) return fail(err, w.error());
  if (o.json)
    out << fabric_import_json(*imported, o.file, o.format, o.output).dump(2) << "\n";
  else
    out << fabric_import_text(*imported, o.file, o.format, o.output);
  return kExitOk;
}

// The node type the facts and hints give, written with -o. `label` names the source; `head` leads
// the JSON.
int node_type_out(const Options& o, const std::string& label, const NodeFacts& facts, const NodeHints& hints,
                  nlohmann::ordered_json head, std::ostream& out, std::ostream& err) {
  Result<NodeImport> imported = node_import(facts, hints, o.nodes, label);
  if (!imported) return fail(err, imported.error());
  if (!o.output.empty())
    if (Result<void> w = text_write_file(o.output, imported->document.dump(2) + "\n"); !w) return fail(err, w.error());
  if (o.json)
    out << node_import_json(*imported, std::move(head), o.nodes, o.output).dump(2) << "\n";
  else
    out << node_import_text(*imported, label, o.nodes, o.output);
  return kExitOk;
}

int run(const Options& o, std::ostream& out, std::ostream& err) {
  Result<const ImportFormat*> format = import_format_named(o.format);
  if (!format) return fail(err, format.error());
  if ((*format)->cluster) return run_fabric(o, **format, out, err);
  const std::string fabrics = import_format_names(ImportKind::cluster);
  if (!o.node_type.empty()) return fail(err, "--node-type: only with " + fabrics + " (node files give the node type)");
  if (!o.fabric.topology.empty())
    return fail(err, "--topology: only with a fabric's file of several topologies (Slurm's topology.yaml)");
  NodeType base;
  Result<NodeHints> hints = node_hints_make(o.hints, file_stem(o.file), &base);
  if (!hints) return fail(err, hints.error());
  Result<std::string> text = text_read_file(o.file);
  if (!text) return fail(err, text.error());
  Result<NodeFacts> facts = (*format)->node(*text, o.file);
  if (!facts) return fail(err, facts.error());
  const std::string name = (*format)->name;
  return node_type_out(o, o.file + " (" + name + ")", *facts, *hints, {{"file", o.file}, {"format", name}}, out, err);
}

// topoplan discover: this machine (or an hwloc XML) through hwloc.
int run_discover(const Options& o, std::ostream& out, std::ostream& err) {
  NodeType base;
  Result<NodeHints> hints = node_hints_make(o.hints, o.file.empty() ? "this-host" : file_stem(o.file), &base);
  if (!hints) return fail(err, hints.error());
  Result<HwlocHost> host = [&]() -> Result<HwlocHost> {
    if (o.file.empty()) return hwloc_local();
    Result<std::string> text = text_read_file(o.file);
    RETURN_IF_ERROR(text);
    return hwloc_xml(*text, o.file);
  }();
  if (!host) return fail(err, host.error());
  const std::string label = o.file.empty() ? "this host" : o.file;
  if (!o.json) out << hwloc_found_text(*host, label);
  if (host->facts.gpus.empty()) {
    if (o.json) out << hwloc_found_json(*host, label).dump(2) << "\n";
    return kExitOk;
  }
  return node_type_out(o, label, host->facts, *hints, hwloc_found_json(*host, label), out, err);
}

// The options that fill what a node file does not say.
void hint_options(CLI::App& app, Options& o) {
  app.add_option("--base", o.hints.base, "preset that supplies what the file does not say (GPU model, NIC rate, ...)");
  app.add_option("--gpu-model", o.hints.gpu_model,
                 "GPU model, e.g. H100-SXM5 (NCCL's dumps and hwloc name it by PCI device ID; nvidia-smi does not)");
  app.add_option("--cpu-model", o.hints.cpu_model,
                 "CPU model, e.g. Xeon-8480C (docs/cluster-format.md): sets the socket link as NCCL does");
  app.add_option("--nic-rate", o.hints.nic_rate, "NIC line rate: 400Gbps");
  app.add_option("--pcie-rate", o.hints.pcie_rate, "PCIe link rate per direction: 63GB/s (Gen5 x16)");
  app.add_option("--cpu-link-rate", o.hints.cpu_link_rate, "socket-to-socket rate per direction: 10GB/s");
  app.add_option("--nvlink-rate", o.hints.nvlink_rate,
                 "one NVLink's rate per direction: 25GB/s (default by GPU generation)");
  app.add_option("--nvlinks", o.hints.nvlinks, "NVLinks per GPU, where the file leaves them to NCCL (0 for none)")
      ->check(CLI::Range(0, 1024));
  app.add_option("--name", o.hints.name, "the node type's name (default: the file's name)");
  app.add_option("--nodes", o.nodes, "write a cluster recipe of N such nodes instead of the node type")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("-o,--output", o.output, "file to write");
  app.add_flag("--json", o.json, "machine-readable output");
}

Run setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("format", o->format,
                 import_format_help(ImportKind::node) + ": a node type; " + import_format_help(ImportKind::cluster) +
                     ": a cluster")
      ->required();
  app.add_option("file", o->file, "the file to read")->required();
  hint_options(app, *o);
  const std::string fabrics = import_format_names(ImportKind::cluster);
  app.add_option("--node-type", o->node_type,
                 fabrics + ": what each host is: a preset, a node type file, or a server's " +
                     import_format_names(ImportKind::node) + " file");
  // Each format refuses those of these it has no use for, so the help says which files they are for.
  app.add_option(
      "--topology", o->fabric.topology,
      "a fabric's file of several topologies (Slurm's topology.yaml): which one (default: its cluster_default)");
  app.add_option(
      "--oversubscription", o->fabric.oversubscription,
      "a fabric's file without port counts (Slurm's): what a switch has below over what it has above (default 1)");
  return [o](std::ostream& out, std::ostream& err) { return run(*o, out, err); };
}

Run setup_discover(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--xml", o->file, "an hwloc XML export (lstopo --of xml) instead of this machine");
  hint_options(app, *o);
  return [o](std::ostream& out, std::ostream& err) { return run_discover(*o, out, err); };
}

}  // namespace

Tool discover_tool() {
  return {"discover",
          "this machine (or an hwloc XML) through hwloc: CPUs, PCIe, GPUs, RDMA NICs, and the node type they make",
          setup_discover};
}

Tool import_tool() {
  static const std::string summary = "read other tools' files: a server (" + import_format_displays(ImportKind::node) +
                                     ") as a node type, " + import_format_displays(ImportKind::cluster) +
                                     " as a cluster";
  return {"import", summary.c_str(), setup};
}

}  // namespace topoplan::cli

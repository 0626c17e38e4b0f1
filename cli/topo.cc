// topoplan topo show | path | export
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#include "base/file_io.h"
#include "base/suggest.h"
#include "cli/tool.h"
#include "cost/peer_path.h"
#include "cost/peer_path_json.h"
#include "topology/down.h"
#include "topology/formats/export.h"
#include "topology/gpu_named.h"
#include "topology/load.h"
#include "topology/summary.h"

namespace topoplan::cli {
namespace {

struct Options {
  std::string cluster, a, b, format = "json", output;
  std::string dot_hosts;  // empty: not given (collapse)
  std::string labels;     // empty: not given (topograph)
  bool json = false;
  bool pxn = false;
  bool all = false;
  bool names = false;
};

// The names --exclude (and the plan file's "exclude") take, one a line after its kind, so a grep
// finds them: "host h001", "gpu h001/gpu3", "link leaf0<->spine2".
int show_names(const Cluster& c, const Options& o, std::ostream& out) {
  const DownNames n = down_names(c);
  if (o.json) {
    nlohmann::ordered_json devices = nlohmann::ordered_json::object();
    for (const auto& [kind, name] : n.devices) devices[std::string(to_string(kind))].push_back(name);
    out << nlohmann::ordered_json{{"hosts", n.hosts}, {"devices", devices}, {"links", n.links}}.dump(2) << "\n";
    return kExitOk;
  }
  out << "# names plan --exclude takes: hosts (their GPUs and NICs), devices by kind, and links A<->B (every port "
         "between the two)\n";
  for (const std::string& h : n.hosts) out << "host " << h << "\n";
  for (const auto& [kind, name] : n.devices) out << to_string(kind) << " " << name << "\n";
  for (const std::string& l : n.links) out << "link " << l << "\n";
  return kExitOk;
}

int show(const Options& o, std::ostream& out, std::ostream& err) {
  Result<Cluster> c = cluster_load(o.cluster);
  if (!c) return fail(err, c.error());
  if (o.names) return show_names(*c, o, out);
  ClusterSummary s = cluster_summarize(*c);
  if (o.json)
    out << summary_to_json(s).dump(2) << "\n";
  else
    out << summary_to_text(s);
  return kExitOk;
}

int path(const Options& o, std::ostream& out, std::ostream& err) {
  Result<Cluster> c = cluster_load(o.cluster);
  if (!c) return fail(err, c.error());
  Result<VertexId> a = gpu_named(*c, o.a), b = gpu_named(*c, o.b);
  if (!a) return fail(err, a.error());
  if (!b) return fail(err, b.error());
  Router router(*c);
  Result<PeerPath> p = peer_path(router, *a, *b, o.pxn ? NicPolicy::pxn : NicPolicy::rail_aligned);
  if (!p) return fail(err, p.error());
  out << (o.json ? peer_path_json(*c, *p).dump(2) + "\n" : peer_path_text(*c, *p, o.all));
  return kExitOk;
}

int export_cluster(const Options& o, std::ostream& out, std::ostream& err) {
  Result<std::string> text = export_write(o.format, o.cluster, {o.dot_hosts, o.labels});
  if (!text) return fail(err, text.error());
  if (o.output.empty()) {
    out << *text;
    return kExitOk;
  }
  if (Result<void> w = text_write_file(o.output, *text); !w) return fail(err, w.error());
  return kExitOk;
}

Run setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.require_subcommand(1);
  const char* cluster_help = "preset spec (dgx-h100:32, gb200-nvl72:2) or cluster file (recipe or graph JSON)";
  CLI::App* s = app.add_subcommand("show", "counts, tiers, capacity and DCI links of a cluster");
  s->add_option("cluster", o->cluster, cluster_help)->required();
  s->add_flag("--names", o->names,
              "list every host, device (by kind) and link by the name plan --exclude takes, one a line");
  s->add_flag("--json", o->json, "machine-readable output");
  CLI::App* p = app.add_subcommand("path", "hop-by-hop path(s) between two GPUs, class and bottleneck");
  p->add_option("cluster", o->cluster, cluster_help)->required();
  p->add_option("gpu_a", o->a, "GPU name (h001/gpu0) or global index")->required();
  p->add_option("gpu_b", o->b, "GPU name or global index")->required();
  p->add_flag("--pxn", o->pxn, "leave the host through the NIC on the destination's rail (NCCL PXN)");
  p->add_flag("--all", o->all, "list every hop of every equal-cost path, not one line per stage");
  p->add_flag("--json", o->json, "machine-readable output (every hop)");
  CLI::App* x = app.add_subcommand("export",
                                   "write the cluster as JSON (lossless), Graphviz DOT, Slurm or Kubernetes topology, "
                                   "or one server's NCCL topology file");
  x->add_option("cluster", o->cluster, cluster_help)->required();
  x->add_option("--format", o->format, export_formats_help())->required();
  x->add_option("-o,--output", o->output, "file to write (default: stdout)");
  x->add_option("--dot-hosts", o->dot_hosts,
                "with --format " + names_list(export_formats_taking(ExportTakes::dot_hosts), " or ") +
                    ": collapse (a host is one node, the default) or expand");
  x->add_option("--labels", o->labels,
                "with " + names_list(export_formats_taking(ExportTakes::labels), " or ") +
                    ": topograph (network.topology.nvidia.com/block, spine, ..., the default) or tiers "
                    "(fabric.topograph.run/tier-N, accelerator.topograph.run/domain)");
  return [o, s, p, x](std::ostream& out, std::ostream& err) {
    if (s->parsed()) return show(*o, out, err);
    if (p->parsed()) return path(*o, out, err);
    if (x->parsed()) return export_cluster(*o, out, err);
    return fail(err, "topo needs a subcommand: show, path or export");
  };
}

}  // namespace

Tool topo_tool() { return {"topo", "inspect a cluster: show, path, export", setup}; }

}  // namespace topoplan::cli

// topoplan topo show | path | export
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#include "base/json_fields.h"
#include "base/suggest.h"
#include "base/units.h"
#include "cli/dot_flags.h"
#include "cli/tool.h"
#include "cost/nccl_tuning.h"
#include "topology/down.h"
#include "topology/formats/dot.h"
#include "topology/formats/export.h"
#include "topology/load.h"
#include "topology/route_text.h"
#include "topology/routing.h"
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

// A GPU by name ("h001/gpu3") or by global index ("11").
Result<VertexId> gpu_arg(const Cluster& c, const std::string& text) {
  if (!text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char ch) { return std::isdigit(ch); })) {
    uint64_t i = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
    if (ec != std::errc() || end != text.data() + text.size() || i >= c.gpus().size())
      return Error{"GPU index " + text + " is out of range: the cluster has " + std::to_string(c.gpus().size()) +
                   " GPUs"};
    return c.gpus()[i];
  }
  if (auto v = c.find(text)) return *v;
  std::vector<std::string> names;
  for (VertexId g : c.gpus()) names.push_back(c.device(g).name);
  return Error{"no GPU '" + text + "'" + did_you_mean(text, names)};
}

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

// Under hash or static routing, the path each of the connections a send between the two GPUs
// opens takes (NCCL gives a remote peer p2p_net_channels_per_peer of them).
struct PeerConnections {
  std::vector<Route> routes;
  // The switch-to-switch link the most of the bytes cross, and that part (each connection 1/n);
  // beside it the most any such link gets split evenly.
  EdgeId busiest = 0;
  double share = 0, even_share = 0;
};

bool switch_to_switch(const Cluster& c, EdgeId e) {
  return is_fabric(c.device(c.source(e)).kind) && is_fabric(c.device(c.target(e)).kind);
}

Result<PeerConnections> connections_route(const Router& router, VertexId a, VertexId b, const Route& even,
                                          NicPolicy nic) {
  const Cluster& c = router.cluster();
  PeerConnections out;
  if (c.routing.mode == Routing::adaptive || even.src_nic == kNoVertex) return out;
  const int n = nccl_tuning_default().p2p_net_channels_per_peer;
  std::map<EdgeId, double> share;
  for (int k = 0; k < n; ++k) {
    Result<Route> r = router.route(a, b, {nic, false, static_cast<uint32_t>(k)});
    RETURN_IF_ERROR(r);
    for (const Hop& h : r->hops)
      if (switch_to_switch(c, h.edge)) share[h.edge] += 1.0 / n;
    out.routes.push_back(std::move(*r));
  }
  for (auto [e, x] : share)
    if (x > out.share) out.busiest = e, out.share = x;
  for (const Hop& h : even.hops)
    if (switch_to_switch(c, h.edge)) out.even_share = std::max(out.even_share, h.share);
  return out;
}

std::string chain_text(const Cluster& c, const Route& r) {
  std::string s = r.src_nic == kNoVertex ? "" : c.device(r.src_nic).name;
  for (const Hop& h : r.hops)
    if (c.link(h.edge).kind == LinkKind::NET || c.link(h.edge).kind == LinkKind::DCI)
      s += " -> " + c.device(c.target(h.edge)).name;
  return s;
}

nlohmann::json route_json(const Cluster& c, const Route& r) {
  nlohmann::json j;
  j["src"] = c.device(r.src).name;
  j["dst"] = c.device(r.dst).name;
  j["class"] = std::string(to_string(r.path_class));
  j["bw_GBps"] = r.bw_GBps;
  j["latency_us"] = r.latency_us;
  j["paths"] = r.paths;
  if (!r.hops.empty()) j["bottleneck"] = c.edge_name(r.bottleneck);
  if (r.src_nic != kNoVertex) j["src_nic"] = c.device(r.src_nic).name;
  if (r.dst_nic != kNoVertex) j["dst_nic"] = c.device(r.dst_nic).name;
  j["hops"] = nlohmann::json::array();
  for (const Hop& h : r.hops) {
    const Link& l = c.link(h.edge);
    j["hops"].push_back({{"from", c.device(c.source(h.edge)).name},
                         {"to", c.device(c.target(h.edge)).name},
                         {"kind", std::string(to_string(l.kind))},
                         {"bw_GBps", l.bw_GBps},
                         {"latency_us", l.latency_us},
                         {"share", h.share}});
  }
  return j;
}

int path(const Options& o, std::ostream& out, std::ostream& err) {
  Result<Cluster> c = cluster_load(o.cluster);
  if (!c) return fail(err, c.error());
  Result<VertexId> a = gpu_arg(*c, o.a), b = gpu_arg(*c, o.b);
  if (!a) return fail(err, a.error());
  if (!b) return fail(err, b.error());
  Router router(*c);
  const NicPolicy nic = o.pxn ? NicPolicy::pxn : NicPolicy::rail_aligned;
  Result<Route> r = router.route(*a, *b, {nic});
  if (!r) return fail(err, r.error());
  Result<PeerConnections> conns = connections_route(router, *a, *b, *r, nic);
  if (!conns) return fail(err, conns.error());
  if (o.json) {
    nlohmann::json j = route_json(*c, *r);
    j["routing"] = routing_json(c->routing);
    if (!conns->routes.empty()) {
      j["connections"] = nlohmann::json::array();
      for (const Route& x : conns->routes) j["connections"].push_back(route_json(*c, x));
      j["busiest_switch_link"] = {
          {"link", c->edge_name(conns->busiest)}, {"share", conns->share}, {"even_share", conns->even_share}};
    }
    out << j.dump(2) << "\n";
    return kExitOk;
  }
  out << c->device(*a).name << " -> " << c->device(*b).name << ": " << to_string(r->path_class);
  if (!r->hops.empty())
    out << ", bottleneck " << format_number(r->bw_GBps, 2) << " GB/s at " << c->edge_name(r->bottleneck);
  out << ", latency " << format_number(r->latency_us, 2) << " us";
  if (r->paths > 1) out << ", " << format_number(r->paths, 0) << " equal-cost paths";
  out << "\nrouting: " << routing_text(c->routing) << "\n" << route_text(*c, *r, o.all);
  if (conns->routes.empty()) return kExitOk;
  out << "the " << conns->routes.size() << " connections NCCL opens to a remote peer, as " << to_string(c->routing.mode)
      << " routing places them:\n";
  for (size_t k = 0; k < conns->routes.size(); ++k)
    out << "  connection " << k << ": " << chain_text(*c, conns->routes[k]) << "\n";
  if (conns->share > 0)
    out << "  busiest switch link " << c->edge_name(conns->busiest) << ": " << format_number(conns->share, 4)
        << " of the bytes (split evenly, the most on any such link is " << format_number(conns->even_share, 4) << ")\n";
  return kExitOk;
}

// A flag that only some formats read is an error with the others, naming those that read it.
Result<void> only_with(const ExportFormat& format, ExportTakes option, const std::string& flag) {
  if (format.takes == option) return {};
  return Error{flag + ": only with --format " + names_list(export_formats_taking(option), " or ")};
}

// The text `topo export` writes: the flags checked against the format's row, then its writer.
Result<std::string> export_text(const Options& o) {
  Result<const ExportFormat*> format = export_format_named(o.format);
  if (!format) return Error{"--format: " + format.error()};
  ExportOptions options;
  if (!o.dot_hosts.empty()) {
    RETURN_IF_ERROR(only_with(**format, ExportTakes::dot_hosts, "--dot-hosts"));
    Result<DotHosts> hosts = dot_hosts_parse(o.dot_hosts);
    RETURN_IF_ERROR(hosts);
    options.dot_hosts = *hosts;
  }
  if (!o.labels.empty()) {
    RETURN_IF_ERROR(only_with(**format, ExportTakes::labels, "--labels"));
    if (o.labels == "tiers")
      options.labels = K8sLabels::tiers;
    else if (o.labels != "topograph")
      return Error{"--labels: unknown scheme '" + o.labels + "' (expected topograph or tiers)"};
  }
  return (*format)->write(o.cluster, options);
}

int export_cluster(const Options& o, std::ostream& out, std::ostream& err) {
  Result<std::string> text = export_text(o);
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

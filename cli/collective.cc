// topoplan collective: predict one NCCL collective on a group of GPUs, or sweep its sizes.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "base/index_list.h"
#include "base/limits.h"
#include "base/text_table.h"
#include "base/units.h"
#include "base/words.h"
#include "cli/count_option.h"
#include "cli/tool.h"
#include "cost/collective.h"
#include "cost/collective_json.h"
#include "topology/load.h"
#include "topology/summary.h"

namespace topoplan::cli {
namespace {

struct Options {
  std::string cluster, op, size, gpus, algo = "auto", proto = "auto", sweep, calibration;
  int gpus_per_node = 0;
  bool json = false, why = false;
};

std::string time_text(double us) { return format_duration(us * 1e-6); }

void print_one(std::ostream& out, const CollectivePrediction& p) {
  out << to_string(p.op) << " " << format_bytes(p.bytes) << " on " << counted(p.ranks, "GPU") << " ("
      << counted(p.nodes, "node") << ", " << counted(p.channels, "channel") << "): " << p.algorithm << "/"
      << to_string(p.proto) << "\n";
  out << "  time " << time_text(p.time_us) << "   algbw " << format_number(p.algbw_GBps, 1) << " GB/s   busbw "
      << format_number(p.busbw_GBps, 1) << " GB/s\n";
  out << "  latency " << time_text(p.latency_us) << " + transfer " << time_text(p.transfer_us);
  if (p.channel_bound) out << " (bound by NCCL's per-channel rate, not a link)";
  const CollectiveCandidate& chosen = p.candidates.front();
  if (chosen.window_us > std::max(chosen.link_us, chosen.cap_us))
    out << " (bound by what a connection holds in flight per DCI round trip)";
  out << "\n  busiest link " << p.bottleneck.link << " (" << to_string(p.bottleneck.kind)
      << "): " << format_bytes(p.bottleneck.bytes) << " at " << format_number(p.bottleneck.bw_GBps, 1)
      << " GB/s effective\n";
  out << "  routing: " << routing_text(p.routing) << "\n";
  if (p.even_bottleneck)
    out << "  split evenly instead (what " << to_string(p.routing.mode)
        << " routing gives on average), the busiest link would be " << p.even_bottleneck->link << ": "
        << format_bytes(p.even_bottleneck->bytes) << "; as routed the worst carries "
        << format_number(p.bottleneck.bytes / p.even_bottleneck->bytes, 2) << "x that\n";
  out << "  candidates:";
  for (size_t i = 0; i < p.candidates.size() && i < 6; ++i)
    out << (i ? ", " : " ") << p.candidates[i].algorithm << "/" << to_string(p.candidates[i].proto) << " "
        << time_text(p.candidates[i].time_us);
  out << "\n";
}

// collective --why: the terms of the choice, the chosen pair beside the runner-up.
void print_why(std::ostream& out, const Cluster& c, const CollectivePrediction& p) {
  const std::vector<CollectiveCandidate>& cs = p.candidates;
  const size_t shown = std::min<size_t>(cs.size(), 2);
  auto us = [](double x) { return x > 0 ? time_text(x) : std::string("-"); };
  using A = TextTable::Align;
  std::vector<A> align = {A::left};
  std::vector<std::string> head = {""};
  for (size_t i = 0; i < shown; ++i) {
    align.push_back(A::right);
    head.push_back(cs[i].algorithm + "/" + std::string(to_string(cs[i].proto)) + (i ? " (runner-up)" : " (chosen)"));
  }
  TextTable t(align);
  t.add(head, "  ");
  auto row = [&](const std::string& name, auto value) {
    std::vector<std::string> r = {name};
    for (size_t i = 0; i < shown; ++i) r.push_back(value(cs[i]));
    t.add(r, "  ");
  };
  row("NCCL latency", [&](const CollectiveCandidate& x) { return us(x.nccl_latency_us); });
  row("launch + per-class (calibration)", [&](const CollectiveCandidate& x) { return us(x.overhead_us); });
  row("DCI propagation", [&](const CollectiveCandidate& x) { return us(x.dci_us); });
  row("busiest link", [&](const CollectiveCandidate& x) { return us(x.link_us); });
  if (p.even_bottleneck)
    row("  the same split evenly (expected)", [&](const CollectiveCandidate& x) { return us(x.even_link_us); });
  row("channel cap", [&](const CollectiveCandidate& x) { return us(x.cap_us); });
  row("DCI window (in flight per round trip)", [&](const CollectiveCandidate& x) { return us(x.window_us); });
  row("pipeline fill", [&](const CollectiveCandidate& x) { return us(x.fill_us); });
  row("total", [&](const CollectiveCandidate& x) { return time_text(x.time_us); });
  row("NCCL's own estimate (what it picks by)", [&](const CollectiveCandidate& x) { return us(x.nccl_time_us); });
  out << "\nwhy " << p.algorithm << "/" << to_string(p.proto) << " ("
      << (p.tuner_pick ? "NCCL's tuner picks it" : "fastest here; NCCL's pick is not modelled") << "; " << p.channels
      << " channels" << (p.nvls_heads > 0 ? ", " + std::to_string(p.nvls_heads) + " NVLS heads" : std::string())
      << "):\n"
      << t.str();
  for (size_t i = 0; i < shown; ++i) {
    const CollectiveCandidate& x = cs[i];
    out << "  " << x.algorithm << "/" << to_string(x.proto) << ": ";
    if (x.has_link)
      out << "busiest link " << c.edge_name(x.link_edge) << " (" << to_string(c.link(x.link_edge).kind) << "), "
          << format_bytes(x.link_bytes) << " at " << format_number(x.link_GBps, 1) << " GB/s effective";
    if (x.cap_us > 0) out << "; NCCL's channel cap " << format_number(x.cap_GBps, 1) << " GB/s on the size";
    const char* bound = x.window_us > std::max(x.link_us, x.cap_us) ? "the DCI window (in flight per round trip)"
                        : x.cap_us > x.link_us                      ? "the channel cap"
                        : x.latency_us > x.transfer_us              ? "latency"
                                                                    : "the link";
    out << "; bound by " << bound << "\n";
  }
  if (shown == 2 && cs[1].time_us < cs[0].time_us)
    out << "  the runner-up would be " << time_text(cs[0].time_us - cs[1].time_us)
        << " faster on these links, but NCCL's own estimate rates it " << time_text(cs[1].nccl_time_us) << " against "
        << time_text(cs[0].nccl_time_us) << "\n";
  else if (shown == 2)
    out << "  the runner-up loses by " << time_text(cs[1].time_us - cs[0].time_us) << ": latency "
        << (cs[1].latency_us >= cs[0].latency_us ? "+" : "-")
        << time_text(std::abs(cs[1].latency_us - cs[0].latency_us)) << ", transfer "
        << (cs[1].transfer_us >= cs[0].transfer_us ? "+" : "-")
        << time_text(std::abs(cs[1].transfer_us - cs[0].transfer_us)) << "\n";
}

// nccl-tests' layout: '#' comment lines, then one row per size; columns as wide as their values.
void print_sweep(std::ostream& out, const std::string& cluster, const std::vector<CollectivePrediction>& rows) {
  const CollectivePrediction& first = rows.front();
  out << "# topoplan collective " << to_string(first.op) << " on " << cluster << ": " << counted(first.ranks, "rank")
      << ", " << counted(first.nodes, "node") << ", " << counted(first.channels, "channel") << "\n";
  out << "# routing: " << routing_text(first.routing) << "\n";
  using A = TextTable::Align;
  TextTable table({A::right, A::right, A::right, A::right, A::left, A::left});
  table.add({"size", "time_us", "algbw_GBps", "busbw_GBps", "algorithm", "protocol"}, "#");
  auto fixed2 = [](double x) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(2) << x;
    return s.str();
  };
  for (const CollectivePrediction& p : rows)
    table.add({std::to_string(static_cast<long long>(p.bytes)), fixed2(p.time_us), fixed2(p.algbw_GBps),
               fixed2(p.busbw_GBps), p.algorithm, std::string(to_string(p.proto))});
  out << table.str();
}

int run(const Options& o, std::ostream& out, std::ostream& err) {
  Result<CollectiveOp> op = parse_collective_op(o.op);
  if (!op) return fail(err, "--op: " + op.error());
  CollectiveRequest req;
  req.op = *op;
  if (o.algo != "auto") {
    std::optional<NcclAlgo> a = nccl_algo_from(o.algo);
    if (!a || *a == NcclAlgo::collnet_direct || *a == NcclAlgo::collnet_chain)
      return fail(err, "--algo: expected auto, ring, tree, nvls, nvlstree or pat, got '" + o.algo + "'");
    req.algo = a;
  }
  if (o.proto != "auto") {
    std::optional<NcclProto> p = nccl_proto_from(o.proto);
    if (!p) return fail(err, "--proto: expected auto, ll, ll128 or simple, got '" + o.proto + "'");
    req.proto = p;
  }
  if (!o.size.empty() && !o.sweep.empty()) return fail(err, "give --size SIZE or --sweep MIN:MAX, not both");
  if (o.size.empty() && o.sweep.empty()) return fail(err, "give --size SIZE or --sweep MIN:MAX");
  std::pair<double, double> range{0, 0};
  if (!o.size.empty()) {
    Result<double> b = parse_bytes(o.size);
    if (!b) return fail(err, "--size: " + b.error());
    if (!(*b >= 1)) return fail(err, "--size: must be at least 1 byte");
    req.bytes = *b;
  } else {
    Result<std::pair<double, double>> r = parse_bytes_range(o.sweep);
    if (!r) return fail(err, "--sweep: " + r.error());
    range = *r;
  }
  Result<Calibration> loaded = calibration_load_or_default(o.calibration);
  if (!loaded) return fail(err, loaded.error());
  const Calibration cal = std::move(*loaded);
  Result<Cluster> c = cluster_load(o.cluster);
  if (!c) return fail(err, c.error());
  const std::vector<VertexId>& all = c->gpus();
  std::vector<int> picked;
  if (!o.gpus.empty()) {
    Result<std::vector<int>> list = parse_index_list(o.gpus, static_cast<int>(all.size()));
    if (!list) return fail(err, "--gpus: " + list.error());
    picked = *list;
  } else {
    for (int i = 0; i < static_cast<int>(all.size()); ++i) picked.push_back(i);
  }
  std::vector<int> per_host(c->hosts().size(), 0);
  for (int i : picked) {
    VertexId v = all[static_cast<size_t>(i)];
    if (o.gpus_per_node > 0 && per_host[static_cast<size_t>(c->device(v).host)]++ >= o.gpus_per_node) continue;
    req.gpus.push_back(v);
  }
  if (req.gpus.size() < 2)
    return fail(err, "--gpus: a collective needs at least 2 GPUs, got " + std::to_string(req.gpus.size()));

  Router router(*c);
  CollectiveModel model(*c, router, nccl_tuning_default(), cal);
  if (!o.sweep.empty()) {
    Result<std::vector<CollectivePrediction>> rows = model.sweep(req, range.first, range.second);
    if (!rows) return fail(err, rows.error());
    if (o.json) {
      nlohmann::json j = nlohmann::json::array();
      for (const CollectivePrediction& p : *rows) j.push_back(collective_prediction_to_json(p));
      out << j.dump(2) << "\n";
    } else {
      print_sweep(out, o.cluster, *rows);
    }
    return kExitOk;
  }
  Result<CollectivePrediction> p = model.predict(req);
  if (!p) return fail(err, p.error());
  if (o.json) {
    out << collective_prediction_to_json(*p).dump(2) << "\n";
  } else {
    print_one(out, *p);
    if (o.why) print_why(out, *c, *p);
  }
  return kExitOk;
}

Run setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--cluster", o->cluster, "preset spec (dgx-h100:2) or cluster file")->required();
  app.add_option("--op", o->op, "all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv")
      ->required();
  app.add_option("--size", o->size, "nccl-tests size: 1GiB, 8MB, 4096");
  app.add_option("--sweep", o->sweep, "powers of two MIN:MAX, e.g. 8B:16GiB");
  app.add_option("--gpus", o->gpus, "global GPU indices, host-major: 0-7,16 (default: every GPU)");
  add_count_option(app, "--gpus-per-node", o->gpus_per_node,
                   "keep the first K selected GPUs of each host (default: all)", 1, static_cast<int>(limits::kMaxGpus));
  app.add_option("--algo", o->algo, "auto, ring, tree, nvls, nvlstree, pat (NCCL_ALGO)");
  app.add_option("--proto", o->proto, "auto, ll, ll128, simple (NCCL_PROTO)");
  app.add_option("--calibration", o->calibration, "overlay of effective link bandwidths (JSON)");
  app.add_flag("--why", o->why,
               "the terms of the prediction: latency, link and channel-cap time, chosen against the runner-up");
  app.add_flag("--json", o->json, "machine-readable output (the terms of every candidate)");
  return [o](std::ostream& out, std::ostream& err) { return run(*o, out, err); };
}

}  // namespace

Tool collective_tool() { return {"collective", "predict one NCCL collective on a group of GPUs", setup}; }

}  // namespace topoplan::cli

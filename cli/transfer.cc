// topoplan transfer: how long moving a data set between facilities takes at best.
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/tool.h"
#include "topology/load.h"
#include "topology/summary.h"
#include "topology/transfer.h"
#include "topology/units.h"

namespace topoplan::cli {
namespace {

struct Options {
  std::string size, rate, cluster, from, to, deadline;
  double efficiency = 1;
  double length_km = 0;
  bool json = false;
};

int run(const Options& o, std::ostream& out, std::ostream& err) {
  Result<double> bytes = parse_bytes(o.size);
  if (!bytes) return fail(err, "--size: " + bytes.error());
  if (*bytes <= 0) return fail(err, "--size: must be > 0");
  if (!(o.efficiency > 0 && o.efficiency <= 1)) return fail(err, "--efficiency: expected a fraction in (0, 1]");
  if (o.rate.empty() == o.cluster.empty())
    return fail(err, "give either --rate RATE or --cluster C --from SITE --to SITE");
  double rate_GBps = 0;
  double length_km = o.length_km;
  std::string via;
  if (!o.rate.empty()) {
    Result<double> r = parse_rate_GBps(o.rate);
    if (!r) return fail(err, "--rate: " + r.error());
    rate_GBps = *r;
  } else {
    if (o.from.empty() || o.to.empty()) return fail(err, "--cluster needs --from SITE and --to SITE");
    Result<Cluster> c = cluster_load(o.cluster);
    if (!c) return fail(err, c.error());
    Result<SiteLink> link = site_link(*c, o.from, o.to);
    if (!link) return fail(err, link.error());
    rate_GBps = link->GBps;
    length_km = link->length_km;
    via = std::to_string(link->links) + " DCI links " + o.from + " -> " + o.to;
  }
  TransferEstimate t = transfer_estimate(*bytes, rate_GBps, o.efficiency, length_km);
  nlohmann::json j = {{"bytes", t.bytes},           {"rate_gbps", rate_GBps * 8},
                      {"efficiency", t.efficiency}, {"seconds", t.seconds},
                      {"propagation_s", t.propagation_s}, {"length_km", length_km}};
  double deadline_s = 0;
  if (!o.deadline.empty()) {
    Result<double> d = parse_duration_s(o.deadline);
    if (!d) return fail(err, "--deadline: " + d.error());
    deadline_s = *d;
    double need = transfer_required_gbps(*bytes, deadline_s, o.efficiency, length_km);
    if (need <= 0) return fail(err, "--deadline: shorter than the propagation delay alone");
    j["deadline_s"] = deadline_s;
    j["required_gbps"] = need;
  }
  if (o.json) {
    out << j.dump(2) << "\n";
    return kExitOk;
  }
  out << format_bytes(t.bytes) << " at " << format_rate_gbit(rate_GBps);
  if (!via.empty()) out << " (" << via << ")";
  if (o.efficiency < 1) out << " x " << format_number(o.efficiency, 3) << " efficiency";
  out << ": " << format_duration(t.seconds) << "\n";
  if (t.propagation_s > 0)
    out << "  includes propagation " << format_duration(t.propagation_s) << " over " << format_number(length_km, 1)
        << " km\n";
  if (deadline_s > 0)
    out << "  to finish within " << format_duration(deadline_s) << ": " << format_number(j["required_gbps"].get<double>(), 1)
        << " Gbps line rate needed\n";
  return kExitOk;
}

Run setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--size", o->size, "data to move: 100TB, 16GiB")->required();
  app.add_option("--rate", o->rate, "line rate: 400Gbps, 50GB/s");
  app.add_option("--cluster", o->cluster, "cluster whose DCI links carry the transfer");
  app.add_option("--from", o->from, "source site (with --cluster)");
  app.add_option("--to", o->to, "destination site (with --cluster)");
  app.add_option("--distance-km", o->length_km, "fibre length for the propagation delay (with --rate)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--efficiency", o->efficiency, "useful fraction of the line rate (default 1)");
  app.add_option("--deadline", o->deadline, "also report the rate needed to finish within: 1h, 30min");
  app.add_flag("--json", o->json, "machine-readable output");
  return [o](std::ostream& out, std::ostream& err) { return run(*o, out, err); };
}

}  // namespace

Tool transfer_tool() { return {"transfer", "ideal time to move data between facilities", setup}; }

}  // namespace topoplan::cli

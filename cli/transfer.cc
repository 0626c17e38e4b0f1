// topoplan transfer: how long moving a data set between facilities takes at best.
#include <cmath>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/tool.h"
#include "topology/limits.h"
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

// An input edge's number (CLI11 reads it as a double): finite and within [lo, hi].
bool in_range(double x, double lo, double hi) { return std::isfinite(x) && x >= lo && x <= hi; }

int run(const Options& o, std::ostream& out, std::ostream& err) {
  Result<double> bytes = parse_bytes(o.size);
  if (!bytes) return fail(err, "--size: " + bytes.error());
  if (*bytes <= 0) return fail(err, "--size: must be > 0");
  if (!in_range(o.efficiency, limits::kMinEfficiency, 1))
    return fail(err, "--efficiency: expected a fraction from 0.001 to 1, got " + format_exact(o.efficiency));
  if (!in_range(o.length_km, 0, limits::kMaxLengthKm))
    return fail(err, "--distance-km: expected a distance from 0 to " + format_number(limits::kMaxLengthKm) +
                         " km, got " + format_exact(o.length_km));
  if (!o.rate.empty() && !o.cluster.empty()) return fail(err, "give --rate RATE or --cluster C --from SITE --to SITE, not both");
  if (o.rate.empty() && o.cluster.empty() && o.deadline.empty())
    return fail(err, "give --rate RATE or --cluster C --from SITE --to SITE for the time, or --deadline D for the rate needed");
  double rate_GBps = 0;
  double length_km = o.length_km;
  std::string via;
  if (!o.rate.empty()) {
    Result<double> r = parse_rate_GBps(o.rate);
    if (!r) return fail(err, "--rate: " + r.error());
    rate_GBps = *r;
  } else if (!o.cluster.empty()) {
    if (o.from.empty() || o.to.empty()) return fail(err, "--cluster needs --from SITE and --to SITE");
    Result<Cluster> c = cluster_load(o.cluster);
    if (!c) return fail(err, c.error());
    Result<SiteLink> link = site_link(*c, o.from, o.to);
    if (!link) return fail(err, link.error());
    rate_GBps = link->GBps;
    length_km = link->length_km;
    via = std::to_string(link->links) + " DCI links " + o.from + " -> " + o.to;
  }
  nlohmann::json j = {{"bytes", *bytes}, {"efficiency", o.efficiency}, {"length_km", length_km}};
  std::optional<TransferEstimate> t;
  if (rate_GBps > 0) {
    t = transfer_estimate(*bytes, rate_GBps, o.efficiency, length_km);
    if (!(t->seconds <= limits::kMaxSeconds))
      return fail(err, "moving " + format_bytes(*bytes) + " at " + format_rate_gbit(rate_GBps * o.efficiency) +
                           " would take more than 1000 years; check --size and the rate");
    j["rate_gbps"] = rate_GBps * 8;
    j["seconds"] = t->seconds;
    j["propagation_s"] = t->propagation_s;
  }
  double deadline_s = 0, need_gbps = 0;
  if (!o.deadline.empty()) {
    Result<double> d = parse_duration_s(o.deadline);
    if (!d) return fail(err, "--deadline: " + d.error());
    deadline_s = *d;
    need_gbps = transfer_required_gbps(*bytes, deadline_s, o.efficiency, length_km);
    if (need_gbps <= 0) return fail(err, "--deadline: shorter than the propagation delay alone");
    j["deadline_s"] = deadline_s;
    j["required_gbps"] = need_gbps;
  }
  if (o.json) {
    out << j.dump(2) << "\n";
    return kExitOk;
  }
  std::string efficiency = o.efficiency < 1 ? " x " + format_number(o.efficiency, 3) + " efficiency" : "";
  if (t) {
    out << format_bytes(t->bytes) << " at " << format_rate_gbit(rate_GBps);
    if (!via.empty()) out << " (" << via << ")";
    out << efficiency << ": " << format_duration(t->seconds) << "\n";
    if (t->propagation_s > 0)
      out << "  includes propagation " << format_duration(t->propagation_s) << " over " << format_number(length_km, 1)
          << " km\n";
    if (deadline_s > 0)
      out << "  to finish within " << format_duration(deadline_s) << ": " << format_rate_gbit(need_gbps / 8)
          << " line rate needed\n";
  } else {
    out << format_bytes(*bytes) << efficiency << " within " << format_duration(deadline_s) << ": "
        << format_rate_gbit(need_gbps / 8) << " line rate needed\n";
  }
  return kExitOk;
}

Run setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--size", o->size, "data to move: 100TB, 16GiB")->required();
  app.add_option("--rate", o->rate, "line rate: 400Gbps, 50GB/s");
  app.add_option("--cluster", o->cluster, "cluster whose DCI links carry the transfer");
  app.add_option("--from", o->from, "source site (with --cluster)");
  app.add_option("--to", o->to, "destination site (with --cluster)");
  app.add_option("--distance-km", o->length_km, "fibre length for the propagation delay (with --rate)");
  app.add_option("--efficiency", o->efficiency, "useful fraction of the line rate (default 1)");
  app.add_option("--deadline", o->deadline, "report the rate needed to finish within: 1h, 30min");
  app.add_flag("--json", o->json, "machine-readable output");
  return [o](std::ostream& out, std::ostream& err) { return run(*o, out, err); };
}

}  // namespace

Tool transfer_tool() { return {"transfer", "ideal time to move data between facilities", setup}; }

}  // namespace topoplan::cli

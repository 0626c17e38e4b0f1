// topoplan transfer: how long moving a data set between facilities takes at best, and beside a
// job whose own traffic crosses the same links (planner/dci_headroom.h).
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "base/limits.h"
#include "base/units.h"
#include "cli/model_flags.h"
#include "cli/tool.h"
#include "planner/transfer_beside_job.h"
#include "planner/transfer_beside_job_json.h"
#include "planner/transfer_beside_job_text.h"
#include "topology/transfer_alone.h"
#include "topology/transfer_alone_json.h"
#include "topology/transfer_text.h"

namespace topoplan::cli {
namespace {

struct Options {
  std::string size, rate, cluster, from, to, deadline, every, job, layout;
  ModelSources model;
  double efficiency = 1;
  double length_km = 0;
  double share = 0.5;
  bool json = false;
};

// An input edge's number (CLI11 reads it as a double): finite and within [lo, hi].
bool in_range(double x, double lo, double hi) { return std::isfinite(x) && x >= lo && x <= hi; }

// The transfer beside a job: the DCI capacity the job leaves free in each direction, the
// transfer's time on what is left from --from to --to, and the job's step while the transfer
// takes --share of those links instead.
int run_beside_job(const Options& o, double bytes, std::optional<double> every_s, std::ostream& out,
                   std::ostream& err) {
  if (o.cluster.empty() || o.from.empty() || o.to.empty())
    return fail(err, "--job needs --cluster C --from SITE --to SITE: the links the transfer and the job share");
  if (!o.rate.empty()) return fail(err, "--job takes the rate from --cluster's DCI links, not --rate");
  if (!in_range(o.share, 0.01, 0.99))
    return fail(err, "--share: expected the part of each DCI link the transfer takes, 0.01 to 0.99, got " +
                         format_exact(o.share));
  Result<std::unique_ptr<JobInputs>> in = job_inputs_load(o.cluster, o.job, o.layout, o.model);
  if (!in) return fail(err, in.error());
  const Cluster& c = (*in)->cluster;
  const TransferBesideJobRequest req{bytes, o.efficiency, o.from, o.to, o.share, every_s, o.job};
  Result<TransferBesideJob> r = transfer_beside_job(**in, req);
  if (!r) return fail(err, r.error());
  if (o.json)
    out << transfer_beside_job_to_json(c, req, *r).dump(2) << "\n";
  else
    out << transfer_beside_job_text(c, req, *r);
  return kExitOk;
}

int run(const Options& o, std::ostream& out, std::ostream& err) {
  Result<double> bytes = parse_bytes(o.size);
  if (!bytes) return fail(err, "--size: " + bytes.error());
  if (*bytes <= 0) return fail(err, "--size: must be > 0");
  if (!in_range(o.efficiency, limits::kMinEfficiency, 1))
    return fail(err, "--efficiency: expected a fraction from 0.001 to 1, got " + format_exact(o.efficiency));
  if (!in_range(o.length_km, 0, limits::kMaxLengthKm))
    return fail(err, "--distance-km: expected a distance from 0 to " + format_number(limits::kMaxLengthKm) +
                         " km, got " + format_exact(o.length_km));
  std::optional<double> every_s;
  if (!o.every.empty()) {
    Result<double> d = parse_duration_s(o.every);
    if (!d) return fail(err, "--every: " + d.error());
    if (*d <= 0) return fail(err, "--every: must be > 0");
    every_s = *d;
  }
  if (!o.job.empty()) {
    if (!o.deadline.empty()) return fail(err, "--deadline is for a transfer alone; with --job, give --every");
    return run_beside_job(o, *bytes, every_s, out, err);
  }
  if (!o.layout.empty()) return fail(err, "--layout needs --job");
  if (!o.rate.empty() && !o.cluster.empty())
    return fail(err, "give --rate RATE or --cluster C --from SITE --to SITE, not both");
  if (o.rate.empty() && o.cluster.empty() && o.deadline.empty())
    return fail(
        err, "give --rate RATE or --cluster C --from SITE --to SITE for the time, or --deadline D for the rate needed");
  Result<TransferAlone> t =
      transfer_alone({*bytes, o.efficiency, o.length_km, o.rate, o.cluster, o.from, o.to, o.deadline, every_s});
  if (!t) return fail(err, t.error());
  if (o.json)
    out << transfer_alone_to_json(*t).dump(2) << "\n";
  else
    out << transfer_alone_text(*t);
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
  app.add_option("--every", o->every,
                 "a recurring transfer (a checkpoint): its share of the link, and whether it finishes before the next");
  app.add_option(
      "--job", o->job,
      "a job whose per-step traffic shares the DCI: the capacity it leaves, its slowdown (with --cluster --from --to)");
  app.add_option("--layout", o->layout, std::string(kLayoutHelp) + "; default: host-major");
  app.add_option("--share", o->share,
                 "with --job: the part of each DCI link the transfer takes while the job sends (default 0.5)");
  model_flags_add(app, o->model);
  app.add_flag("--json", o->json, "machine-readable output");
  return [o](std::ostream& out, std::ostream& err) { return run(*o, out, err); };
}

}  // namespace

Tool transfer_tool() { return {"transfer", "ideal time to move data between facilities", setup}; }

}  // namespace topoplan::cli

// topoplan traffic: the communicators and per-step collectives NCCL's own log shows, and with
// --job, beside the traffic the model assumes (observe/observed_traffic.h, traffic_compare.h).
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "base/units.h"
#include "cli/tool.h"
#include "observe/observed_traffic_text.h"
#include "observe/traffic_beside_job.h"
#include "observe/traffic_compare_json.h"

namespace topoplan::cli {
namespace {

struct Options {
  std::vector<std::string> logs;
  std::string job;
  double steps = 0;
  double tolerance = 1.5;
  bool json = false;
};

int run(const Options& o, std::ostream& out, std::ostream& err) {
  if (!(o.tolerance > 1 && o.tolerance <= 1000))
    return fail(err, "--tolerance: expected a factor above 1, got " + format_exact(o.tolerance));
  if (o.steps < 0 || o.steps > 1e9)
    return fail(err, "--steps: expected the number of steps the log covers, got " + format_exact(o.steps));
  Result<NcclLog> log = nccl_log_load(o.logs);
  if (!log) return fail(err, log.error());
  Result<ObservedTraffic> t = observed_traffic(*log, o.steps > 0 ? std::optional<double>(o.steps) : std::nullopt);
  if (!t) return fail(err, t.error());
  std::optional<TrafficBesideJob> beside;
  if (!o.job.empty()) {
    Result<TrafficBesideJob> b = traffic_beside_job(*t, o.job, o.tolerance);
    if (!b) return fail(err, b.error());
    beside = std::move(*b);
  }
  if (o.json) {
    nlohmann::json j = observed_traffic_to_json(*t);
    if (beside) {
      j["job"] = beside->job;
      j["beside_model"] = traffic_rows_json(beside->rows);
    }
    out << j.dump(2) << "\n";
    return kExitOk;
  }
  out << observed_traffic_text(*t, beside);
  return kExitOk;
}

Run setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--nccl-log", o->logs,
                 "logs written with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL (one per rank, host or launcher)")
      ->required();
  app.add_option("--job", o->job, "lay the log beside this job's modelled traffic (docs/job-format.md)");
  app.add_option("--steps", o->steps, "training steps the log covers (default: found in the calls' pattern)");
  app.add_option("--tolerance", o->tolerance, "observed / modelled bytes beyond which a row is flagged (default 1.5)");
  app.add_flag("--json", o->json, "machine-readable output; `score --traffic` reads it");
  return [o](std::ostream& out, std::ostream& err) { return run(*o, out, err); };
}

}  // namespace

Tool traffic_tool() {
  return {"traffic", "the communicators and per-step collectives in NCCL's log, beside the model's", setup};
}

}  // namespace topoplan::cli

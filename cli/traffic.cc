// topoplan traffic: the communicators and per-step collectives NCCL's own log shows, and with
// --job, beside the traffic the model assumes (observe/observed_traffic.h, traffic_compare.h).
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "base/hostlist.h"
#include "base/text_table.h"
#include "base/units.h"
#include "base/words.h"
#include "cli/tool.h"
#include "observe/traffic_compare.h"
#include "observe/traffic_compare_json.h"
#include "planner/score_state.h"

namespace topoplan::cli {
namespace {

struct Options {
  std::vector<std::string> logs;
  std::string job;
  double steps = 0;
  double tolerance = 1.5;
  bool json = false;
};

// "h[001-002]: 8 GPUs": where a communicator's members run, as far as the log shows them.
std::string members_text(const ObservedComm& c) {
  if (c.members.empty()) return "not in the log";
  std::vector<std::string> hosts;
  for (const NcclLogRank& m : c.members)
    if (std::find(hosts.begin(), hosts.end(), m.host) == hosts.end()) hosts.push_back(m.host);
  std::string s =
      hostlist_compress(hosts) + ": " + std::to_string(c.members.size()) + " of " + counted(c.nranks, "rank");
  return s;
}

int run(const Options& o, std::ostream& out, std::ostream& err) {
  if (!(o.tolerance > 1 && o.tolerance <= 1000))
    return fail(err, "--tolerance: expected a factor above 1, got " + format_exact(o.tolerance));
  if (o.steps < 0 || o.steps > 1e9)
    return fail(err, "--steps: expected the number of steps the log covers, got " + format_exact(o.steps));
  Result<NcclLog> log = nccl_log_load(o.logs);
  if (!log) return fail(err, log.error());
  Result<ObservedTraffic> t = observed_traffic(*log, o.steps > 0 ? std::optional<double>(o.steps) : std::nullopt);
  if (!t) return fail(err, t.error());
  std::optional<std::vector<TrafficRow>> rows;
  std::string job_name;
  if (!o.job.empty()) {
    Result<Job> job = job_load(o.job);
    if (!job) return fail(err, job.error());
    // Bytes and calls per step do not depend on the GPU, only the overlap windows do, which the
    // comparison leaves out.
    Result<ComputeEstimate> compute = compute_estimate(*job, "H100");
    if (!compute) return fail(err, o.job + ": " + compute.error());
    Result<StepTraffic> model = step_traffic(*job, *compute);
    if (!model) return fail(err, o.job + ": " + model.error());
    Result<std::vector<TrafficRow>> r = traffic_beside_model(*t, *job, *model, o.tolerance);
    if (!r) return fail(err, o.job + ": " + r.error());
    rows = std::move(*r);
    job_name = job->name;
  }
  if (o.json) {
    nlohmann::json j = observed_traffic_to_json(*t);
    if (rows) {
      j["job"] = job_name;
      j["beside_model"] = traffic_rows_json(*rows);
    }
    out << j.dump(2) << "\n";
    return kExitOk;
  }
  out << "NCCL " << (t->version.empty() ? "version unknown" : t->version) << ": "
      << counted(static_cast<int64_t>(t->comms.size()), "communicator") << "; " << format_number(t->steps, 2) << " step"
      << (t->steps == 1 ? "" : "s") << " (" << t->steps_from << ")\n\n";
  // Communicators that issue the same calls per step are one row.
  std::map<std::pair<int, std::string>, std::vector<const ObservedComm*>> classes;
  std::vector<std::pair<int, std::string>> order;
  for (const ObservedComm& c : t->comms) {
    auto key = std::make_pair(c.nranks, observed_calls_text(c.per_step));
    if (classes[key].empty()) order.push_back(key);
    classes[key].push_back(&c);
  }
  using A = TextTable::Align;
  TextTable table({A::right, A::right, A::left, A::left, A::left});
  table.add({"ranks", "comms", "first", "members (first)", "per step, per communicator"}, "  ");
  for (const auto& key : order) {
    const std::vector<const ObservedComm*>& cs = classes[key];
    table.add({std::to_string(key.first), std::to_string(cs.size()), cs[0]->comm_id, members_text(*cs[0]), key.second},
              "  ");
  }
  out << table.str();
  // Setup calls the same way: "32 communicators of 4 ranks: Broadcast 2 MB x 1".
  std::map<std::pair<int, std::string>, int> setups;
  std::vector<std::pair<int, std::string>> setup_order;
  for (const ObservedComm& c : t->comms)
    if (!c.setup.empty()) {
      auto key = std::make_pair(c.nranks, observed_calls_text(c.setup));
      if (setups[key]++ == 0) setup_order.push_back(key);
    }
  if (!setup_order.empty()) out << "\nbefore the first step (setup), per communicator:\n";
  for (const auto& key : setup_order)
    out << "  " << setups[key] << " of " << counted(key.first, "rank") << ": " << key.second << "\n";
  if (rows) {
    out << "\nbeside " << job_name << "'s model (matched by group size and operation; per group and step):\n";
    TextTable m({A::right, A::left, A::left, A::right, A::right, A::right, A::right, A::left});
    m.add({"ranks", "op", "model kinds", "model", "calls", "observed", "calls", "verdict"}, "  ");
    std::vector<double> sizes;
    for (const TrafficRow& r : *rows) {
      if (r.model_groups) sizes.push_back(r.model_bytes);
      if (r.observed_comms) sizes.push_back(r.observed_bytes);
    }
    const SizeUnits units = size_units_of(sizes);
    for (const TrafficRow& r : *rows) {
      std::string kinds;
      for (const std::string& k : r.kinds) kinds += (kinds.empty() ? "" : ", ") + k;
      m.add({std::to_string(r.group_size), r.op, kinds.empty() ? "-" : kinds,
             r.model_groups ? format_bytes(r.model_bytes, units) : "-",
             r.model_groups ? format_number(r.model_calls, 1) : "-",
             r.observed_comms ? format_bytes(r.observed_bytes, units) : "-",
             r.observed_comms ? format_number(r.observed_calls, 1) : "-", std::string(to_string(r.verdict))},
            "  ");
    }
    out << m.str();
  }
  if (!t->warnings.empty()) {
    out << "\nwarnings:\n";
    for (const std::string& w : t->warnings) out << "  " << w << "\n";
  }
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

// topoplan collective: predict one NCCL collective on a group of GPUs, or sweep its sizes.
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#include "base/limits.h"
#include "base/units.h"
#include "cli/count_option.h"
#include "cli/tool.h"
#include "cost/collective.h"
#include "cost/collective_json.h"
#include "cost/collective_request.h"
#include "cost/collective_text.h"
#include "topology/load.h"

namespace topoplan::cli {
namespace {

struct Options {
  std::string cluster, op, size, gpus, algo = "auto", proto = "auto", sweep, calibration;
  int gpus_per_node = 0;
  bool json = false, why = false;
};

int run(const Options& o, std::ostream& out, std::ostream& err) {
  Result<CollectiveRequest> parsed = collective_request_parse(o.op, o.algo, o.proto);
  if (!parsed) return fail(err, parsed.error());
  CollectiveRequest req = std::move(*parsed);
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
  Result<std::vector<VertexId>> gpus = collective_gpus_pick(*c, o.gpus, o.gpus_per_node);
  if (!gpus) return fail(err, gpus.error());
  req.gpus = std::move(*gpus);

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
      out << collective_sweep_text(o.cluster, *rows);
    }
    return kExitOk;
  }
  Result<CollectivePrediction> p = model.predict(req);
  if (!p) return fail(err, p.error());
  if (o.json) {
    out << collective_prediction_to_json(*p).dump(2) << "\n";
  } else {
    out << collective_text(*p);
    if (o.why) out << "\n" << collective_why_text(*c, *p);
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

// Traffic files (score --traffic, written by `traffic --json`): whatever reads is matched to
// tiny-8's groups on one DGX H100 without error (every member is a GPU of h001 or named as not
// placed), and the items it makes have finite sizes and calls that score.
#include <cmath>

#include "fuzz/fuzz.h"
#include "observe/scored_traffic.h"
#include "planner/score.h"
#include "topology/load.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Cluster cluster = *cluster_load("dgx-h100:1");
  static const Router router(cluster);
  static const Job job = *job_load(TOPOPLAN_SOURCE_DIR "/data/jobs/tiny-8.json");
  static const Layout layout = *layout_default(cluster, 8);
  static const StepTraffic model = *step_traffic(job, *compute_estimate(job, "H100"));
  std::optional<nlohmann::json> doc = fuzz::json_input(data, size);
  if (!doc) return 0;
  Result<ObservedTraffic> t = observed_traffic_from_json(*doc, "fuzz.json");
  if (!fuzz::ok_or_explained(t)) return 0;
  Result<ScoredTraffic> s = scored_traffic(*t, cluster, job, layout, model);
  if (!fuzz::ok_or_explained(s)) return 0;
  for (const TrafficItem& it : s->traffic.items)
    if (!std::isfinite(it.bytes) || it.bytes < 0 || !std::isfinite(it.calls) || it.calls < 0)
      fuzz::violated("an item of a size or call count not finite and >= 0");
  if (s->matched.empty()) return 0;
  ScoreOptions o;
  o.traffic = &s->traffic;
  Result<JobScore> score = score_job(cluster, router, job, layout, o);
  if (!score) fuzz::violated("matched traffic does not score:", score.error());
  if (!std::isfinite(score->step_s)) fuzz::violated("a step time not finite");
  return 0;
}

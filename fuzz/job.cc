// Job files: parse, round trip through job_to_json, and run the compute estimate and the
// per-step traffic on every job that loads (their arithmetic is where overflow would hide).
#include "planner/job.h"
#include "fuzz/fuzz.h"
#include "planner/compute.h"
#include "planner/traffic.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::optional<nlohmann::json> doc = fuzz::json_input(data, size);
  if (!doc) return 0;
  Result<Job> job = job_from_json(*doc, "fuzz.json");
  if (!fuzz::ok_or_explained(job)) return 0;
  fuzz::expect_round_trip([](const nlohmann::json& j) { return job_from_json(j, "written.json"); },
                          [](const Job& x) { return job_to_json(x).dump(); }, job_to_json(*job).dump());
  Result<ComputeEstimate> compute = compute_estimate(*job, "H100-SXM5");
  if (!fuzz::ok_or_explained(compute)) return 0;
  fuzz::ok_or_explained(step_traffic(*job, *compute));
  return 0;
}

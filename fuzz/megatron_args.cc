// Megatron-LM argument lists and launch lines as --job reads them (planner/megatron_args.h): the
// shell's quoting and continuations, torchrun's world size, the --moe-layer-freq pattern and every
// flag's value. The first byte sets the world size the command would give (0: none), the rest is
// the file. Every error must name the file; a job that loads must round-trip through job_to_json.
#include "planner/megatron_args.h"
#include "fuzz/fuzz.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const WorldHint hint{data[0] % 65, "the fuzzer"};
  Result<Job> job = job_from_megatron_args(fuzz::text(data + 1, size - 1), "fuzz.args", hint);
  if (!fuzz::ok_or_explained(job)) {
    if (!job.error().starts_with("fuzz.args")) fuzz::violated("an error that does not name the file:", job.error());
    return 0;
  }
  fuzz::expect_round_trip([](const nlohmann::json& j) { return job_from_json(j, "written.json"); },
                          [](const Job& x) { return job_to_json(x).dump(); }, job_to_json(*job).dump());
  return 0;
}

// Explicit cluster graphs (docs/cluster-format.md): parse, build, summarise, route, and save and
// load again to the same bytes.
#include "fuzz/fuzz.h"
#include "topology/formats/json.h"
#include "topology/routing.h"
#include "topology/summary.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::optional<nlohmann::json> doc = fuzz::json_input(data, size);
  if (!doc) return 0;
  Result<Cluster> c = cluster_from_json(*doc, "fuzz.json");
  if (!fuzz::ok_or_explained(c)) return 0;
  summary_to_text(cluster_summarize(*c));
  Router router(*c);
  const std::vector<VertexId>& gpus = c->gpus();
  fuzz::ok_or_explained(router.route(gpus.front(), gpus.back()));
  fuzz::ok_or_explained(router.route(gpus.back(), gpus.front(), {NicPolicy::pxn, true}));
  fuzz::expect_round_trip([](const nlohmann::json& j) { return cluster_from_json(j, "saved.json"); },
                          [](const Cluster& x) { return save_cluster_json(x); }, save_cluster_json(*c));
  return 0;
}

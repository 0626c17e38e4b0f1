// Background files (--background): utilization per tier or per link, on a fixed two-tier cluster.
// Whatever they load must leave every link a share in (0, 1].
#include "cost/link_share.h"
#include "fuzz/fuzz.h"
#include "topology/load.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Cluster cluster = *cluster_load("dgx-h100:64");
  std::optional<nlohmann::json> doc = fuzz::json_input(data, size);
  if (!doc) return 0;
  Result<Background> bg = background_from_json(*doc, "fuzz.json", cluster);
  if (!fuzz::ok_or_explained(bg)) return 0;
  const LinkShare s = link_share_make(cluster, FabricMode::idle, std::vector<double>(cluster.hosts().size(), 1), &*bg);
  for (EdgeId e = 0; e < cluster.num_edges(); ++e)
    if (!(s.at(e) > 0 && s.at(e) <= 1)) fuzz::violated("a link share outside (0, 1]");
  return 0;
}

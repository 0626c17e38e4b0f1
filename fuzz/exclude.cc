// --exclude lists: hosts, devices and links by name, comma-separated, on a fixed cluster; a router
// built around what they take down must still route or say why.
#include <sstream>

#include "fuzz/fuzz.h"
#include "topology/down.h"
#include "topology/load.h"
#include "topology/routing.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Cluster cluster = *cluster_load("dgx-h100:4");
  std::vector<std::string> names;
  std::stringstream in(fuzz::text(data, size));
  for (std::string item; std::getline(in, item, ',');) names.push_back(item);
  Result<DownSet> down = down_parse(cluster, names);
  if (!fuzz::ok_or_explained(down)) return 0;
  Router router(cluster, *down);
  Result<Route> r = router.route(cluster.gpus().front(), cluster.gpus().back());
  fuzz::ok_or_explained(r);
  return 0;
}

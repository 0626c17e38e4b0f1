// InfiniBand's ibnetdiscover dump: parse and build with dgx-h100 hosts; an error says why, and a
// cluster that builds holds every host the file's Ca blocks name.

#include "topology/formats/ibnetdiscover.h"
#include "fuzz/fuzz.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const ClusterImportOptions options = [] {
    ClusterImportOptions o;
    o.type = *node_type_named("dgx-h100");
    return o;
  }();
  const std::string text = fuzz::text(data, size);
  Result<ClusterImport> built = ibnetdiscover_import(text, "fuzz.txt", options);
  if (!fuzz::ok_or_explained(built)) return 0;
  if (built->cluster.hosts().empty()) fuzz::violated("a fabric that built has no hosts");
  if (built->cluster.gpus().size() != built->cluster.hosts().size() * static_cast<size_t>(options.type.gpus))
    fuzz::violated("hosts built without the node type's GPUs");
  return 0;
}

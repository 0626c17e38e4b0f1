// `nvidia-smi topo -m` text: parse, infer a node type, build it.
#include "topology/formats/nvidia_smi.h"
#include "fuzz/node_import.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Result<NodeFacts> facts = nvidia_smi_topo_parse(fuzz::text(data, size), "fuzz.txt");
  if (fuzz::ok_or_explained(facts)) fuzz::expect_node_type_builds(*facts);
  return 0;
}

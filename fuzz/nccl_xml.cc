// NCCL topology XML: parse, infer a node type, build it.
#include "topology/formats/nccl_xml.h"
#include "fuzz/node_import.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Result<NodeFacts> facts = nccl_topo_xml_parse(fuzz::text(data, size), "fuzz.xml");
  if (fuzz::ok_or_explained(facts)) fuzz::expect_node_type_builds(*facts);
  return 0;
}

// hwloc XML (lstopo --of xml) through hwloc's own reader: GPUs, RDMA NICs and NVLink bandwidth
// found, a node type inferred and built.
#include "topology/formats/hwloc.h"
#include "fuzz/node_import.h"

using namespace topoplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Result<NodeFacts> facts = hwloc_xml_facts(fuzz::text(data, size), "fuzz.xml");
  if (fuzz::ok_or_explained(facts)) fuzz::expect_node_type_builds(*facts);
  return 0;
}

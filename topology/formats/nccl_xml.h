// NCCL's topology XML (NCCL_TOPO_FILE, NCCL_TOPO_DUMP_FILE): <system> of <cpu> NUMA nodes holding
// <pci> trees, with <gpu> (and its <nvlink>s) and <nic>/<net> inside, or bare PCI entries that NCCL
// completes at run time. Read with pugixml.
#pragma once

#include <string>
#include <string_view>

#include "topology/formats/node_facts.h"

namespace topoplan {

// Errors name `where` and the line: "topo.xml:12: <pci busid="..."> link_speed 'fast': expected
// e.g. '16.0 GT/s PCIe'".
Result<NodeFacts> nccl_topo_xml_parse(const std::string& text, const std::string& where);

// Whether the file is XML whose root is NCCL's <system> (import_format.h).
bool nccl_xml_sniff(std::string_view line, std::string_view text);

// An NCCL_TOPO_FILE for one server of this type, as cloud images ship them for VMs whose PCI tree
// NCCL cannot see: a <cpu> per NUMA node, a <pci> bridge per PCIe switch, and under it the GPUs
// and NICs as bare PCI entries that NCCL matches by bus ID and completes (NVLinks, NIC ports) at
// run time. The type's bus IDs where it has them (imported from NCCL or hwloc XML); otherwise
// made-up ones, which a comment says to replace.
std::string nccl_topo_xml_write(const NodeType& type);

}  // namespace topoplan

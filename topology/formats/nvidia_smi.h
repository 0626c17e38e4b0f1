// `nvidia-smi topo -m`, the matrix every GPU server can print: NV# (bonded NVLinks), PIX and PXB
// (a shared PCIe switch), PHB, NODE, SYS and the older SOC; the NIC legend; CPU and NUMA affinity.
#pragma once

#include <string>
#include <string_view>

#include "topology/formats/node_facts.h"

namespace topoplan {

// Errors name `where`, the line and the column: "topo.txt:4: GPU2: 'NVX' in column GPU5 is not a
// link (expected X, NV#, PIX, PXB, PHB, NODE, SYS or SOC)".
Result<NodeFacts> nvidia_smi_topo_parse(const std::string& text, const std::string& where);

// Whether the file's first line (import_format.h) is the header row: GPU0 first.
bool nvidia_smi_sniff(std::string_view line, std::string_view text);

}  // namespace topoplan

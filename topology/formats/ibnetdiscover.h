// InfiniBand's cabled fabric as ibnetdiscover (infiniband-diags) prints it: a block per node, a
// Switch or Ca line ("S-<guid>", "H-<guid>", its description) and a line per cabled port with the
// peer, its port and the link's active width and speed (4xHDR). Read into a cluster of one node
// type: hosts named by their HCAs' descriptions, switches tiered by distance from the hosts.
#pragma once

#include <string>
#include <string_view>

#include "topology/formats/import_format.h"

namespace topoplan {

// Whether the file's first line (import_format.h) is a node block's vendid= or Switch/Ca line.
bool ibnetdiscover_sniff(std::string_view line, std::string_view text);

// Hosts of `options.type`, one per host name (the first word of a Ca's description: "node018
// HCA-1", "gpu01 mlx5_3"), several HCAs on one host, each host's NICs cabled in HCA order to the
// switches its ports reach; switches with hosts are leaves (tier 1), the rest a tier above the
// nearest lower one; one link per cabled port pair at its width times its lane's data rate. The
// cluster is named after `where`; errors name `where`, the line and what was expected.
Result<ClusterImport> ibnetdiscover_import(const std::string& text, const std::string& where,
                                           const ClusterImportOptions& options);

}  // namespace topoplan

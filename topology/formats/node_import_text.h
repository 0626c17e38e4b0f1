// What `topoplan import` (and discover) report, as text and as JSON: a node type with where each
// of its values came from, and a fabric's file summed up as a cluster by tier. node_import.h makes
// them; writing them with -o is the command's.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "topology/formats/node_import.h"

namespace topoplan {

// `label` names the source; `nodes` > 0 when `imported` is a recipe of that many; `written`: the
// path -o wrote, empty when none was written.
std::string node_import_text(const NodeImport& imported, const std::string& label, int nodes,
                             const std::string& written);
// `head` leads the document: the file and its format, or what discover found.
nlohmann::ordered_json node_import_json(const NodeImport& imported, nlohmann::ordered_json head, int nodes,
                                        const std::string& written);

// `file` and `format` as given; `written` as above.
std::string fabric_import_text(const FabricImport& imported, const std::string& file, const std::string& format,
                               const std::string& written);
nlohmann::ordered_json fabric_import_json(const FabricImport& imported, const std::string& file,
                                          const std::string& format, const std::string& written);

}  // namespace topoplan

#include "topology/formats/node_import_text.h"

#include <functional>
#include <map>
#include <sstream>

#include "base/text_table.h"
#include "base/words.h"

namespace topoplan {
namespace {

constexpr const char* kNoNics = "no NICs: a recipe cannot join hosts of this type into a cluster";

// A mesh's bonds for the summary: "a mesh, 16 GPU pairs bonded: 8 by 2 NVLinks, 8 by 1".
std::string bonds_text(const NodeType& type) {
  std::map<int, int, std::greater<>> pairs_by_links;
  int pairs = 0;
  for (size_t a = 0; a < type.nvlink_bonds.size(); ++a)
    for (size_t b = a + 1; b < type.nvlink_bonds.size(); ++b)
      if (int k = type.nvlink_bonds[a][b]; k > 0) ++pairs_by_links[k], ++pairs;
  std::string text = "a mesh, " + std::to_string(pairs) + " GPU pairs bonded:";
  const char* sep = " ";
  for (const auto& [links, n] : pairs_by_links) {
    text += sep + std::to_string(n) + " by " + std::to_string(links) + (links == 1 ? " NVLink" : " NVLinks");
    sep = ", ";
  }
  return text;
}

// Field -> where its value came from; a field given twice keeps the last.
nlohmann::ordered_json sources_json(const NodeImport& imported) {
  nlohmann::ordered_json sources = nlohmann::ordered_json::object();
  for (const auto& [field, from] : imported.inferred.sources) sources[field] = from;
  return sources;
}

}  // namespace

std::string node_import_text(const NodeImport& imported, const std::string& label, int nodes,
                             const std::string& written) {
  const NodeType& type = imported.inferred.type;
  const nlohmann::ordered_json& doc = imported.document;
  nlohmann::ordered_json sources = sources_json(imported);
  std::ostringstream out;
  out << label << ": node type '" << type.name << "': " << type.gpus << " x " << type.gpu_model << ", "
      << counted(type.nics, "NIC") << ", " << counted(type.cpus, "CPU") << "\n";
  TextTable table({TextTable::left, TextTable::left, TextTable::left});
  table.add({"field", "value", "from"}, "  ");
  for (const auto& [key, value] : (nodes > 0 ? doc["node"] : doc).items()) {
    // The name heads the text; lists of names (NICs, bus IDs) follow the table.
    if (key == "format" || key == "version" || key == "name" ||
        (value.is_array() && !value.empty() && value[0].is_string()))
      continue;
    std::string shown = value.is_string() ? value.get<std::string>() : value.dump();
    if (key == "nvlink_bonds") shown = bonds_text(type);
    table.add({key, shown, sources.contains(key) ? sources[key].get<std::string>() : "file: counted"}, "  ");
  }
  out << table.str();
  if (!imported.cluster) out << "  note: " << kNoNics << "\n";
  for (const auto& [what, list] :
       {std::pair{"NICs in rail order:", &type.nic_names}, std::pair{"GPU bus IDs:", &type.gpu_busids}})
    if (!list->empty()) {
      out << "  " << what;
      for (const std::string& n : *list) out << " " << n;
      out << "\n";
    }
  if (!written.empty())
    out << "wrote " << written
        << (nodes > 0 ? ": a cluster recipe of " + std::to_string(nodes) + " such nodes"
                      : ": a node type; a recipe takes it as \"node\" (with \"nodes\": N)")
        << "\n";
  else
    out << "(-o FILE writes it; --nodes N writes a cluster recipe of N such nodes)\n";
  return out.str();
}

nlohmann::ordered_json node_import_json(const NodeImport& imported, nlohmann::ordered_json head, int nodes,
                                        const std::string& written) {
  head[nodes > 0 ? "recipe" : "node_type"] = imported.document;
  head["sources"] = sources_json(imported);
  if (!written.empty()) head["written"] = written;
  if (!imported.cluster) head["note"] = kNoNics;
  return head;
}

std::string fabric_import_text(const FabricImport& imported, const std::string& file, const std::string& format,
                               const std::string& written) {
  const Cluster& c = imported.built.cluster;
  const std::map<int, int> per_tier = switches_per_tier(c);
  std::ostringstream out;
  out << file << " (" << format << "): " << counted(static_cast<int64_t>(c.hosts().size()), "host") << " of "
      << imported.type.name << " (" << counted(static_cast<int64_t>(c.gpus().size()), "GPU") << "), switches";
  for (const auto& [tier, n] : per_tier)
    out << " " << n << " at tier " << tier << (tier == per_tier.rbegin()->first ? "" : ",");
  out << "\n";
  for (const std::string& n : imported.built.notes) out << "  note: " << n << "\n";
  if (!written.empty())
    out << "wrote " << written << ": the cluster as an explicit graph, which every CLUSTER argument takes\n";
  else
    out << "(-o FILE writes the cluster)\n";
  return out.str();
}

nlohmann::ordered_json fabric_import_json(const FabricImport& imported, const std::string& file,
                                          const std::string& format, const std::string& written) {
  const Cluster& c = imported.built.cluster;
  nlohmann::ordered_json tiers = nlohmann::ordered_json::array();
  for (const auto& [tier, n] : switches_per_tier(c)) tiers.push_back({{"tier", tier}, {"switches", n}});
  nlohmann::ordered_json j = {{"file", file},
                              {"format", format},
                              {"node_type", imported.type.name},
                              {"hosts", c.hosts().size()},
                              {"gpus", c.gpus().size()},
                              {"tiers", tiers},
                              {"notes", imported.built.notes}};
  if (!written.empty()) j["written"] = written;
  return j;
}

}  // namespace topoplan

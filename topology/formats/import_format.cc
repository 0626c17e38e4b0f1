#include "topology/formats/import_format.h"

#include <algorithm>
#include <cctype>

#include "base/suggest.h"

// The import family, in the order help and errors list it: one row a format, naming the sniff and
// parse that its own file (topology/formats/) defines. The row declares both, so a new format is
// its file and its row. NODE rows read one server into NodeFacts; CLUSTER rows read a fabric into
// a cluster of --node-type hosts. Slurm's two files share one import name and one parse, which
// tells them apart again by content.
#define TOPOPLAN_IMPORT_FORMATS(NODE, CLUSTER)                                                                        \
  NODE("nvidia-smi", "nvidia-smi topo -m", "topo -m output", nvidia_smi_sniff, nvidia_smi_topo_parse)                 \
  NODE("nccl-xml", "NCCL topology XML", "NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE", nccl_xml_sniff, nccl_topo_xml_parse)  \
  NODE("hwloc", "hwloc XML", "lstopo --of xml", hwloc_xml_sniff, hwloc_xml_facts)                                     \
  CLUSTER("ibnetdiscover", "InfiniBand ibnetdiscover", "infiniband-diags' dump of the cabled fabric",                 \
          ibnetdiscover_sniff, ibnetdiscover_import)                                                                  \
  CLUSTER("slurm-topology", "Slurm topology.conf", "topology.conf or topology.yaml, tree or block", slurm_conf_sniff, \
          slurm_topology_import)                                                                                      \
  CLUSTER("slurm-topology", "Slurm topology.yaml", "", slurm_yaml_sniff, slurm_topology_import)

namespace topoplan {

#define TOPOPLAN_DECLARE_NODE(name, display, help, sniff, parse) \
  bool sniff(std::string_view line, std::string_view text);      \
  Result<NodeFacts> parse(const std::string& text, const std::string& where);
#define TOPOPLAN_DECLARE_CLUSTER(name, display, help, sniff, parse) \
  bool sniff(std::string_view line, std::string_view text);         \
  Result<ClusterImport> parse(const std::string& text, const std::string& where, const ClusterImportOptions& options);
TOPOPLAN_IMPORT_FORMATS(TOPOPLAN_DECLARE_NODE, TOPOPLAN_DECLARE_CLUSTER)

namespace {

#define TOPOPLAN_NODE_ROW(name, display, help, sniff, parse) ImportFormat{name, display, help, sniff, parse, nullptr},
#define TOPOPLAN_CLUSTER_ROW(name, display, help, sniff, parse) \
  ImportFormat{name, display, help, sniff, nullptr, parse},
const ImportFormat kImportFormats[] = {TOPOPLAN_IMPORT_FORMATS(TOPOPLAN_NODE_ROW, TOPOPLAN_CLUSTER_ROW)};

bool of_kind(const ImportFormat& f, ImportKind kind) {
  return kind == ImportKind::any || (kind == ImportKind::node) == (f.node != nullptr);
}

// The first line that is not blank or a comment, without terminal escapes (nvidia-smi underlines
// its header on a terminal) and leading blanks; "" when there is none.
std::string first_line(std::string_view text) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string line;
    for (size_t i = at; i < end; ++i) {
      if (text[i] == '\x1b') {
        while (i < end && !std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
        continue;
      }
      line += text[i];
    }
    at = end + 1;
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    return line.substr(first);
  }
  return "";
}

}  // namespace

std::span<const ImportFormat> import_formats() { return kImportFormats; }

const ImportFormat* import_format_of(std::string_view text) {
  const std::string line = first_line(text);
  if (line.empty()) return nullptr;
  for (const ImportFormat& f : kImportFormats)
    if (f.sniff(line, text)) return &f;
  return nullptr;
}

bool json_of(std::string_view text) {
  const std::string line = first_line(text);
  return !line.empty() && (line[0] == '{' || line[0] == '[');
}

std::string import_format_names(ImportKind kind, const char* last) {
  std::vector<std::string> names;
  for (const ImportFormat& f : kImportFormats)
    if (of_kind(f, kind) && std::find(names.begin(), names.end(), f.name) == names.end()) names.push_back(f.name);
  return names_list(names, last);
}

std::string import_format_displays(ImportKind kind) {
  std::vector<std::string> displays;
  for (const ImportFormat& f : kImportFormats)
    if (of_kind(f, kind)) displays.push_back(f.display);
  return names_list(displays, " or ");
}

std::string import_format_help(ImportKind kind) {
  std::vector<std::string> items;
  for (const ImportFormat& f : kImportFormats)
    if (of_kind(f, kind) && *f.help) items.push_back(std::string(f.name) + " (" + f.help + ")");
  return names_list(items, " or ");
}

Result<const ImportFormat*> import_format_named(const std::string& name) {
  std::vector<std::string> names;
  for (const ImportFormat& f : kImportFormats) {
    if (name == f.name) return &f;
    names.push_back(f.name);
  }
  return Error{"FORMAT: unknown format '" + name + "'" + did_you_mean(name, names) +
               " (formats: " + import_format_names(ImportKind::any, ", ") + ")"};
}

std::string_view xml_root(std::string_view text) {
  for (size_t at = text.find('<'); at != std::string_view::npos; at = text.find('<', at + 1)) {
    if (text.substr(at, 4) == "<!--") {
      at = text.find("-->", at);
      if (at == std::string_view::npos) break;
      continue;
    }
    const size_t start = at + 1;
    if (start < text.size() && std::isalpha(static_cast<unsigned char>(text[start]))) {
      size_t end = start;
      while (end < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_' || text[end] == '-'))
        ++end;
      return text.substr(start, end - start);
    }
  }
  return {};
}

}  // namespace topoplan

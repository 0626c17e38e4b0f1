#include "topology/formats/file_format.h"

#include <cctype>

#include "topology/formats/hwloc.h"
#include "topology/formats/nccl_xml.h"
#include "topology/formats/nvidia_smi.h"

namespace topoplan {
namespace {

bool starts_with_nocase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  return true;
}

// The first element's name after the XML declaration, comments and the DOCTYPE.
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
      while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_' || text[end] == '-')) ++end;
      return text.substr(start, end - start);
    }
  }
  return {};
}

}  // namespace

FileFormat file_format_of(std::string_view text) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string line;
    // Without terminal escapes (nvidia-smi underlines its header on a terminal) and leading blanks.
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
    const std::string_view l = std::string_view(line).substr(first);
    if (l[0] == '{' || l[0] == '[') return FileFormat::json;
    if (l[0] == '<') {
      const std::string_view root = xml_root(text);
      return root == "system" ? FileFormat::nccl_xml : root == "topology" ? FileFormat::hwloc_xml : FileFormat::unknown;
    }
    if (l.starts_with("GPU0") && (l.size() == 4 || std::isspace(static_cast<unsigned char>(l[4])))) return FileFormat::nvidia_smi;
    if (starts_with_nocase(l, "switchname=") || starts_with_nocase(l, "blockname=") || starts_with_nocase(l, "blocksizes="))
      return FileFormat::slurm_conf;
    if (l.starts_with("---") || l.starts_with("- ") || l == "-") return FileFormat::slurm_yaml;
    return FileFormat::unknown;
  }
  return FileFormat::unknown;
}

const char* file_format_name(FileFormat format) {
  switch (format) {
    case FileFormat::json: return "JSON";
    case FileFormat::nccl_xml: return "NCCL topology XML";
    case FileFormat::hwloc_xml: return "hwloc XML";
    case FileFormat::nvidia_smi: return "nvidia-smi topo -m";
    case FileFormat::slurm_conf: return "Slurm topology.conf";
    case FileFormat::slurm_yaml: return "Slurm topology.yaml";
    case FileFormat::unknown: break;
  }
  return "unknown";
}

const char* import_format_name(FileFormat format) {
  switch (format) {
    case FileFormat::nccl_xml: return "nccl-xml";
    case FileFormat::hwloc_xml: return "hwloc";
    case FileFormat::nvidia_smi: return "nvidia-smi";
    case FileFormat::slurm_conf:
    case FileFormat::slurm_yaml: return "slurm-topology";
    default: return "";
  }
}

NodeParser node_parser(FileFormat format) {
  switch (format) {
    case FileFormat::nccl_xml: return nccl_topo_xml_parse;
    case FileFormat::hwloc_xml: return hwloc_xml_facts;
    case FileFormat::nvidia_smi: return nvidia_smi_topo_parse;
    default: return nullptr;
  }
}

}  // namespace topoplan

// Which format a file is in, told from its content, so every CLUSTER argument and --node-type can
// take other tools' files directly: JSON (topoplan's own), NCCL's topology XML, hwloc's XML,
// `nvidia-smi topo -m`, Slurm's topology.conf and topology.yaml.
#pragma once

#include <string>
#include <string_view>

#include "topology/formats/node_facts.h"

namespace topoplan {

enum class FileFormat { unknown, json, nccl_xml, hwloc_xml, nvidia_smi, slurm_conf, slurm_yaml };

// From the first thing in the file that is not a comment or blank: '{' or '[' JSON, an XML root
// <system> (NCCL) or <topology> (hwloc), a first row starting GPU0 (nvidia-smi), a SwitchName=,
// BlockName= or BlockSizes= line (topology.conf), a YAML list item or document start (topology.yaml).
FileFormat file_format_of(std::string_view text);

// "NCCL topology XML", for messages.
const char* file_format_name(FileFormat format);

// The name `topoplan import` knows the format by: "nccl-xml"; "" for JSON and unknown.
const char* import_format_name(FileFormat format);

// The parser of a format that describes one server; nullptr for the others.
using NodeParser = Result<NodeFacts> (*)(const std::string& text, const std::string& where);
NodeParser node_parser(FileFormat format);

}  // namespace topoplan

// The import family: other tools' files that `topoplan import`, every CLUSTER argument and
// --node-type take directly, each told from its content. One table (import_format.cc) lists them;
// help texts, "expected one of" errors, "did you mean" and sniffing all iterate it.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "topology/cluster.h"
#include "topology/formats/node_facts.h"
#include "topology/node_types.h"

namespace topoplan {

// A cluster read from a fabric's file, and what building it noted that a reader should know.
struct ClusterImport {
  Cluster cluster;
  std::vector<std::string> notes;
};

// What a fabric's file does not say: what each host is, and the options of `topoplan import` that
// a format may take (a format refuses those it has no use for).
struct ClusterImportOptions {
  NodeType type;
  std::string topology;         // one of several topologies in the file; "" the file's default
  double oversubscription = 1;  // where the file gives no port counts: down ports over up ports
};

// A server's file: its facts. Errors name `where` and the line.
using NodeParse = Result<NodeFacts> (*)(const std::string& text, const std::string& where);
// A fabric's file: a cluster of `options.type` hosts, named after `where`.
using ClusterParse = Result<ClusterImport> (*)(const std::string& text, const std::string& where,
                                               const ClusterImportOptions& options);

struct ImportFormat {
  const char* name;     // as `topoplan import` knows it: "nccl-xml"
  const char* display;  // for messages: "NCCL topology XML"
  const char* help;     // what writes such a file, for --help; "" where a row before says it
  // Whether `line`, the file's first that is not blank or a comment (without terminal escapes or
  // leading blanks), starts a file of this format; `text` is the whole file.
  bool (*sniff)(std::string_view line, std::string_view text);
  NodeParse node;        // set for a server's format, or
  ClusterParse cluster;  // for a fabric's format, which takes --node-type
};

// Every row, in the order help and errors list them.
std::span<const ImportFormat> import_formats();

// The format the file's content shows; nullptr for JSON (topoplan's own) and anything else.
const ImportFormat* import_format_of(std::string_view text);
// Whether the content is JSON: its first line that is not blank or a comment opens '{' or '['.
bool json_of(std::string_view text);

// By the name `topoplan import` knows: "FORMAT: unknown format 'x' (formats: ...)" with a
// "did you mean" where one is close.
Result<const ImportFormat*> import_format_named(const std::string& name);

// Which rows a list takes: servers' formats, fabrics' formats, or both.
enum class ImportKind { node, cluster, any };
// "nvidia-smi, nccl-xml or hwloc" (names, each once) or "nvidia-smi topo -m, NCCL topology XML
// or hwloc XML" (displays), for help and errors; `last` joins the last two.
std::string import_format_names(ImportKind kind, const char* last = " or ");
std::string import_format_displays(ImportKind kind);
// "nvidia-smi (topo -m output), nccl-xml (...) or hwloc (lstopo --of xml)", for --help.
std::string import_format_help(ImportKind kind);

// The first element's name after the XML declaration, comments and the DOCTYPE: what tells XML
// formats apart.
std::string_view xml_root(std::string_view text);

}  // namespace topoplan

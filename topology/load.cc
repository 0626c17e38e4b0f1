#include "topology/load.h"

#include <charconv>
#include <cstdint>
#include <filesystem>
#include <optional>

#include "base/json_fields.h"
#include "base/limits.h"
#include "base/units.h"
#include "topology/formats/import_format.h"
#include "topology/formats/json.h"
#include "topology/formats/node_type_json.h"

namespace topoplan {

namespace {

// The N of NAME:N or FILE:N (`form`): that many nodes of `type`, or racks of a rack-scale type, on
// its default fabric.
Result<ClusterSpec> counted_spec(const std::string& text, const char* form, const NodeType& type,
                                 const std::string& n) {
  const char* unit = type.hosts_per_domain > 1 ? "racks" : "nodes";
  int64_t count = 0;
  auto [ptr, ec] = std::from_chars(n.data(), n.data() + n.size(), count);
  const bool digits =
      !n.empty() && ptr == n.data() + n.size() && n.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || (ec != std::errc() && ec != std::errc::result_out_of_range) || (ec == std::errc() && count <= 0))
    return Error{"cluster '" + text + "': expected " + form + " with N a positive number of " + unit + ", got '" + n +
                 "'"};
  // Checked here, before the count is multiplied into anything.
  const int64_t per_count = int64_t{type.hosts_per_domain} * type.gpus;
  const int64_t most = limits::kMaxGpus / per_count;
  if (ec == std::errc::result_out_of_range || count > most)
    return Error{"cluster '" + text + "': " + n + " " + unit + " of " + std::to_string(per_count) +
                 " GPUs are more than the limit of " + format_count(limits::kMaxGpus) + " GPUs (" + format_count(most) +
                 " " + unit + ")"};
  ClusterSpec spec;
  spec.name = text;
  spec.node = type;
  spec.nodes = static_cast<int>(count * type.hosts_per_domain);
  spec.fabric = fabric_default(type);
  return spec;
}

}  // namespace

Result<ClusterSpec> preset_spec_parse(const std::string& text) {
  const size_t colon = text.find(':');
  const std::string name = text.substr(0, colon);
  Result<NodeType> type = node_type_named(name);
  if (!type) return Error{"cluster '" + text + "': " + type.error()};
  // A cluster needs a size, and no size is a natural default: "dgx-h100" alone is more likely a
  // forgotten count than a wish for one server.
  if (colon == std::string::npos)
    return Error{"cluster '" + text + "': give the number of " + (type->hosts_per_domain > 1 ? "racks" : "nodes") +
                 ", e.g. '" + name + ":" + (type->hosts_per_domain > 1 ? "2" : "32") + "' (NAME:N)"};
  return counted_spec(text, "NAME:N", *type, text.substr(colon + 1));
}

namespace {

bool is_file(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

bool names_a_file(const std::string& spec) {
  return is_file(spec) || spec.find('/') != std::string::npos || spec.ends_with(".json");
}

struct Sniffed {
  std::string text;
  const ImportFormat* format;  // nullptr: JSON or unknown
  bool json;
};

Result<Sniffed> sniff(const std::string& path) {
  Result<std::string> text = text_read_file(path);
  RETURN_IF_ERROR(text);
  const ImportFormat* format = import_format_of(*text);
  const bool json = json_of(*text);
  return Sniffed{std::move(*text), format, json};
}

// "a file of unknown format", or the format's name for messages.
std::string format_shown(const Sniffed& file) {
  return file.format ? file.format->display : file.json ? "JSON" : "a file of unknown format";
}

// The node type in a file already read: a server's file in an import format from what it says alone, named after the file; a node type; or, where `cluster_ok`, a recipe's
// node. `count` is the ":N" the caller was given, for the message when a cluster file is not ok.
Result<NodeType> node_type_in(const std::string& path, const Sniffed& file, bool cluster_ok, const std::string& count) {
  if (file.format && file.format->node) {
    Result<NodeFacts> facts = file.format->node(file.text, path);
    RETURN_IF_ERROR(facts);
    NodeHints hints;
    hints.name = file_stem(path);
    Result<NodeTypeInference> inferred = node_type_infer(*facts, hints);
    if (!inferred)
      return Error{inferred.error() + "\n(the options are `topoplan import " + file.format->name + " " + path +
                   " ... -o node.json`'s; give the node.json it writes)"};
    return inferred->type;
  }
  if (!file.json)
    return Error{path + ": expected a node type, a recipe, or a server's " + import_format_displays(ImportKind::node) +
                 " file, got " + format_shown(file)};
  Result<nlohmann::json> doc = json_parse_text(file.text, path);
  RETURN_IF_ERROR(doc);
  const bool cluster = doc->is_object() && (doc->contains("node") || doc->contains("devices"));
  // A recipe or a graph is a cluster already: a count would silently drop its fabric.
  if (cluster && !cluster_ok)
    return Error{"cluster '" + path + ":" + count + "': " + path +
                 " is a cluster file already: give it without :" + count};
  if (doc->is_object() && doc->contains("gpu_model")) return node_type_from_json(*doc, path);
  if (doc->is_object() && doc->contains("node")) {
    Result<ClusterSpec> recipe = recipe_from_json(*doc, path);
    RETURN_IF_ERROR(recipe);
    return recipe->node;
  }
  return Error{path + ": an explicit graph keeps no node type; give the recipe or the node type file it came from"};
}

// "FILE:N": N hosts of the node type in FILE on the default fabric; "" when `spec` is not that.
std::optional<Result<Cluster>> node_file_cluster(const std::string& spec) {
  const size_t colon = spec.rfind(':');
  if (colon == std::string::npos || !is_file(spec.substr(0, colon))) return std::nullopt;
  const std::string path = spec.substr(0, colon), n = spec.substr(colon + 1);
  Result<Sniffed> file = sniff(path);
  if (!file) return Result<Cluster>{Error{file.error()}};
  Result<NodeType> type = node_type_in(path, *file, false, n);
  if (!type) return Result<Cluster>{Error{type.error()}};
  Result<ClusterSpec> c = counted_spec(spec, "FILE:N", *type, n);
  if (!c) return Result<Cluster>{Error{c.error()}};
  c->name = file_stem(path) + ":" + n;
  return cluster_build(*c);
}

// "FILE@NODE": a fabric's file (topology.conf) with hosts of NODE (a preset or a node file).
std::optional<Result<Cluster>> fabric_cluster(const std::string& spec) {
  const size_t at = spec.rfind('@');
  if (at == std::string::npos || !is_file(spec.substr(0, at))) return std::nullopt;
  const std::string path = spec.substr(0, at);
  if (at + 1 == spec.size())
    return Result<Cluster>{
        Error{"cluster '" + spec + "': expected FILE@NODE, NODE a preset (dgx-h100) or a node file"}};
  Result<NodeType> type = node_type_load(spec.substr(at + 1));
  if (!type) return Result<Cluster>{Error{type.error()}};
  ClusterImportOptions options;
  options.type = *type;
  Result<ClusterImport> built = cluster_import(path, nullptr, options);
  if (!built) return Result<Cluster>{Error{built.error()}};
  return Result<Cluster>{std::move(built->cluster)};
}

}  // namespace

Result<ClusterImport> cluster_import(const std::string& path, const ImportFormat* format,
                                     const ClusterImportOptions& options) {
  Result<Sniffed> file = sniff(path);
  RETURN_IF_ERROR(file);
  if (!format) format = file->format;
  if (!format || !format->cluster)
    return Error{path + ": expected " + import_format_displays(ImportKind::cluster) + ", got " + format_shown(*file)};
  return format->cluster(file->text, path, options);
}

Result<Cluster> cluster_load(const std::string& spec) {
  if (is_file(spec)) {
    Result<Sniffed> file = sniff(spec);
    RETURN_IF_ERROR(file);
    if (file->format && file->format->node)
      return Error{spec + " describes one server (" + file->format->display + "): give " + spec +
                   ":N for a cluster of N of them"};
    if (file->format)
      return Error{spec + " (" + file->format->display + ") names hosts, not what is in them: give " + spec +
                   "@NODE, NODE a preset (dgx-h100) or a node file"};
    if (!file->json && !spec.ends_with(".json"))
      return Error{spec + ": not a cluster: expected a recipe or graph (JSON), a server's " +
                   import_format_displays(ImportKind::node) + " file (FILE:N), or " +
                   import_format_displays(ImportKind::cluster) + " (FILE@NODE)"};
    Result<nlohmann::json> doc = json_parse_text(file->text, spec);
    RETURN_IF_ERROR(doc);
    if (doc->is_object() && doc->contains("gpu_model") && !doc->contains("node") && !doc->contains("devices"))
      return Error{spec + " is a node type: give " + spec + ":N for a cluster of N such servers"};
    return cluster_from_document(*doc, spec);
  }
  if (auto fabric = fabric_cluster(spec)) return std::move(*fabric);
  if (auto nodes = node_file_cluster(spec)) return std::move(*nodes);
  // "nodes.xml:4" or "dir/x@dgx-h100" whose file is missing: say so, not "unknown preset".
  const std::string before = spec.substr(0, std::min(spec.rfind(':'), spec.rfind('@')));
  if (names_a_file(spec) || before.find('.') != std::string::npos || before.find('/') != std::string::npos) {
    Result<std::string> text = text_read_file(before.size() < spec.size() ? before : spec);
    return Error{text ? spec + ": not a regular file" : text.error()};
  }
  Result<ClusterSpec> parsed = preset_spec_parse(spec);
  RETURN_IF_ERROR(parsed);
  return cluster_build(*parsed);
}

Result<NodeType> node_type_load(const std::string& spec) {
  if (is_file(spec)) {
    Result<Sniffed> file = sniff(spec);
    RETURN_IF_ERROR(file);
    return node_type_in(spec, *file, true, "");
  }
  if (names_a_file(spec)) {
    Result<std::string> text = text_read_file(spec);
    return Error{text ? spec + ": not a regular file" : text.error()};
  }
  if (spec.find(':') == std::string::npos) return node_type_named(spec);
  Result<ClusterSpec> preset = preset_spec_parse(spec);
  RETURN_IF_ERROR(preset);
  return preset->node;
}

}  // namespace topoplan

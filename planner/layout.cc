#include "planner/layout.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "base/json_fields.h"
#include "base/suggest.h"
#include "planner/layout_formats/formats.h"
#include "planner/plan_json.h"

namespace topoplan {
namespace {

// Checks and completes a rank -> GPU assignment; `where_of(rank)` says where the rank was given.
template <typename Where>
Result<Layout> finish(std::vector<VertexId> gpus, const Cluster& c, int world, const std::string& source,
                      Where where_of) {
  if (world > 0 && static_cast<int>(gpus.size()) != world)
    return Error{source + ": the job has " + std::to_string(world) + " ranks, the layout places " +
                 std::to_string(gpus.size())};
  if (gpus.empty()) return Error{source + ": the layout places no rank"};
  std::vector<int> owner(c.num_devices(), -1);
  for (int r = 0; r < static_cast<int>(gpus.size()); ++r) {
    VertexId v = gpus[static_cast<size_t>(r)];
    if (v == kNoVertex) return Error{source + ": rank " + std::to_string(r) + " is not placed"};
    if (owner[v] >= 0)
      return Error{where_of(r) + ": GPU " + c.device(v).name + " already runs rank " + std::to_string(owner[v])};
    owner[v] = r;
  }
  Layout l;
  l.gpu_of_rank = std::move(gpus);
  l.source = source;
  return l;
}

Result<Layout> from_json(const nlohmann::json& doc, const std::string& where, const Cluster& c, int world) {
  if (doc.is_object() && doc.value("format", nlohmann::json()) == kPlanFormat)
    return plan_layout_read(doc, where, c, world);
  std::string error;
  Fields top(doc, "", {"format", "ranks"}, &error);
  if (top.has("format") && top.text("format", kRequired) != "topoplan-layout")
    top.fail("format", "expected \"topoplan-layout\" or \"" + std::string(kPlanFormat) + "\"");
  const nlohmann::json* ranks = top.list("ranks", true);
  if (!error.empty()) return error_in(where, error);
  return layout_from_ranks(*ranks, {"rank", "host", "gpu"}, where, c, world);
}

// The text forms, told apart by their first line; a host list is what is left.
struct TextForm {
  const char* name;
  bool (*detect)(const std::vector<LayoutWord>& first);
  LayoutTextParse parse;
};
constexpr TextForm kTextForms[] = {
    {"ompi-rankfile", ompi_rankfile_detect, ompi_rankfile_parse},
    {"ranks-env", ranks_env_detect, ranks_env_parse},
    {"torchrun", torchrun_detect, torchrun_parse},
};

Result<Layout> from_text(const std::string& text, const std::string& where, const Cluster& c, int world) {
  LayoutTextParse parse = host_list_parse;
  std::string flag;  // the first word when it is a command-line flag
  lines_each(text, [&](int, std::string_view, const std::vector<LayoutWord>& first) {
    if (first[0].text.starts_with("--")) flag = first[0].text;
    for (const TextForm& form : kTextForms)
      if (form.detect(first)) parse = form.parse;
    return std::string("the first line decides");
  });
  if (!flag.empty())
    return Error{where + ": this is a Megatron-LM argument list (it starts with " + flag +
                 "): give it to --job; a layout places ranks on GPUs (docs/layout-formats.md)"};
  const RankCap cap = world > 0 ? RankCap{world, true} : RankCap{static_cast<int>(c.gpus().size()), false};
  Result<LayoutLines> placed = parse(text, where, c, cap);
  RETURN_IF_ERROR(placed);
  std::vector<int> lines = std::move(placed->lines);
  Result<Layout> out = finish(std::move(placed->gpus), c, world, where,
                              [&](int r) { return where + ":" + std::to_string(lines[static_cast<size_t>(r)]); });
  if (out) out->line_of_rank = std::move(lines);
  return out;
}

}  // namespace

Result<Layout> layout_from_ranks(const nlohmann::json& ranks, const std::vector<std::string>& item_keys,
                                 const std::string& where, const Cluster& c, int world) {
  std::string error;
  std::vector<VertexId> gpus(ranks.size(), kNoVertex);
  for (size_t i = 0; i < ranks.size() && error.empty(); ++i) {
    const nlohmann::json& item = ranks[i];
    const std::string at = json_indexed("ranks", i);
    if (item.is_string()) {
      std::string name = item.get<std::string>();
      std::optional<VertexId> v = c.find(name);
      if (!v || c.device(*v).kind != DeviceKind::gpu)
        error = at + ": no GPU '" + name + "' (GPUs are named like '" + c.device(c.gpus()[0]).name + "')";
      else
        gpus[i] = *v;
      continue;
    }
    Fields f(item, at, item_keys, &error);
    int rank = f.integer("rank", kRequired, 0, static_cast<int>(ranks.size()) - 1);
    std::string host = f.name("host");
    int local = f.integer("gpu", kRequired, 0);
    if (!f.ok()) break;
    std::optional<int> h = c.host_index(host);
    if (!h) {
      f.fail(f.at("host"), layout_no_host(c, host));
      break;
    }
    const std::vector<VertexId>& hg = c.hosts()[static_cast<size_t>(*h)].gpus;
    if (local >= static_cast<int>(hg.size())) {
      f.fail(f.at("gpu"), host + " has " + std::to_string(hg.size()) + " GPUs (0-" + std::to_string(hg.size() - 1) +
                              "), got " + std::to_string(local));
      break;
    }
    if (gpus[static_cast<size_t>(rank)] != kNoVertex) {
      f.fail(f.at("rank"), "rank " + std::to_string(rank) + " is placed twice");
      break;
    }
    gpus[static_cast<size_t>(rank)] = hg[static_cast<size_t>(local)];
  }
  if (!error.empty()) return error_in(where, error);
  return finish(std::move(gpus), c, world, where,
                [&](int r) { return where + ": " + json_indexed("ranks", static_cast<size_t>(r)); });
}

Result<Layout> layout_default(const Cluster& c, int world) {
  if (world > static_cast<int>(c.gpus().size()))
    return Error{"the job needs " + std::to_string(world) + " GPUs, the cluster has " +
                 std::to_string(c.gpus().size())};
  Layout l;
  l.gpu_of_rank.assign(c.gpus().begin(), c.gpus().begin() + world);
  l.source = "default";
  return l;
}

Result<Layout> layout_parse(const std::string& text, const std::string& where, const Cluster& c, int world) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (text[first] == '{' || text[first] == '[')) {
    Result<nlohmann::json> parsed = json_parse_text(text, where);
    RETURN_IF_ERROR(parsed);
    nlohmann::json doc = std::move(*parsed);
    if (doc.is_array()) doc = {{"ranks", doc}};
    return from_json(doc, where, c, world);
  }
  return from_text(text, where, c, world);
}

Result<Layout> layout_load(const std::string& path, const Cluster& c, int world) {
  Result<std::string> text = text_read_file(path);
  RETURN_IF_ERROR(text);
  return layout_parse(*text, path, c, world);
}

}  // namespace topoplan

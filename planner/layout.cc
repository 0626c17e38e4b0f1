#include "planner/layout.h"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <sstream>

#include "planner/plan_json.h"
#include "topology/formats/json_fields.h"
#include "topology/hostlist.h"
#include "topology/suggest.h"

namespace topoplan {
namespace {

std::vector<std::string> host_names(const Cluster& c) {
  std::vector<std::string> names;
  for (const Host& h : c.hosts()) names.push_back(h.name);
  return names;
}

std::string no_host(const Cluster& c, const std::string& name) {
  return "no host '" + name + "'" + did_you_mean(name, host_names(c));
}

// Checks and completes a rank -> GPU assignment; `where_of(rank)` says where the rank was given.
template <typename Where>
Result<Layout> finish(std::vector<VertexId> gpus, const Cluster& c, int world, const std::string& source, Where where_of) {
  if (static_cast<int>(gpus.size()) != world)
    return Error{source + ": the job has " + std::to_string(world) + " ranks, the layout places " +
                 std::to_string(gpus.size())};
  std::vector<int> owner(c.num_devices(), -1);
  for (int r = 0; r < world; ++r) {
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
  std::string error;
  const bool plan = doc.is_object() && doc.value("format", nlohmann::json()) == kPlanFormat;
  Fields top(doc, "", plan ? plan_json_keys() : std::vector<std::string>{"format", "ranks"}, &error);
  if (!plan && top.has("format") && top.text("format", kRequired) != "topoplan-layout")
    top.fail("format", "expected \"topoplan-layout\" or \"" + std::string(kPlanFormat) + "\"");
  const nlohmann::json* ranks = top.list("ranks", true);
  std::string order;
  std::vector<std::string> down;
  if (plan) {
    order = top.name("order");
    if (const nlohmann::json* ex = top.list("exclude", false))
      for (size_t i = 0; i < ex->size() && error.empty(); ++i) {
        if (!(*ex)[i].is_string())
          top.fail(json_indexed("exclude", i), "expected a device or link name, got " + json_shown((*ex)[i]));
        else
          down.push_back((*ex)[i].get<std::string>());
      }
  }
  if (!error.empty()) return error_in(where, error);
  std::vector<VertexId> gpus(ranks->size(), kNoVertex);
  for (size_t i = 0; i < ranks->size() && error.empty(); ++i) {
    const nlohmann::json& item = (*ranks)[i];
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
    Fields f(item, at, plan ? std::vector<std::string>{"rank", "host", "gpu", "nic"} : std::vector<std::string>{"rank", "host", "gpu"},
             &error);
    int rank = f.integer("rank", kRequired, 0, static_cast<int>(ranks->size()) - 1);
    std::string host = f.name("host");
    int local = f.integer("gpu", kRequired, 0);
    if (!f.ok()) break;
    std::optional<int> h = c.host_index(host);
    if (!h) {
      f.fail(f.at("host"), no_host(c, host));
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
  Result<Layout> out =
      finish(std::move(gpus), c, world, where, [&](int r) { return where + ": " + json_indexed("ranks", static_cast<size_t>(r)); });
  if (out) {
    out->order = std::move(order);
    out->down = std::move(down);
  }
  return out;
}

// A word of a host-list line and where it starts, so that errors can name the column.
struct Word {
  std::string_view text;
  size_t column;  // 1-based
};

std::vector<Word> words_of(std::string_view line) {
  std::vector<Word> words;
  for (size_t b = line.find_first_not_of(" \t\r"); b != std::string_view::npos; b = line.find_first_not_of(" \t\r", b)) {
    const size_t e = std::min(line.find_first_of(" \t\r", b), line.size());
    words.push_back({line.substr(b, e - b), b + 1});
    b = e;
  }
  return words;
}

// slots=N from the words after the hosts: N, or 0 when the line has none (one rank per name).
Result<int> slots_of(const std::vector<Word>& words, const std::string& at) {
  int slots = 0;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string_view w = words[i].text;
    const std::string here = at + ":" + std::to_string(words[i].column) + ": ";
    const size_t eq = w.find('=');
    const std::string key(w.substr(0, eq));
    if (eq == std::string_view::npos)
      return Error{here + "expected slots=N after the hosts, got '" + key +
                   "' (a line is HOSTS [slots=N]; hosts on one line are separated by commas)"};
    if (key != "slots")
      return Error{here + "unknown key '" + key + "'" + did_you_mean(key, {"slots"}) + " (a line is HOSTS [slots=N])"};
    if (slots > 0) return Error{here + "slots is given twice"};
    const std::string_view value = w.substr(eq + 1);
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), slots);
    if (ec != std::errc() || end != value.data() + value.size() || slots <= 0)
      return Error{at + ":" + std::to_string(words[i].column + eq + 1) + ": slots: expected a positive integer, got '" +
                   std::string(value) + "'"};
  }
  return slots;
}

// Lines `HOSTS [slots=N]` as layout.h describes them; each rank keeps its line for explain.
Result<Layout> from_host_list(const std::string& text, const std::string& where, const Cluster& c, int world) {
  std::vector<VertexId> gpus;
  std::vector<int> used(c.hosts().size(), 0), line_of;
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    const std::vector<Word> words = words_of(line);
    if (words.empty()) continue;
    const std::string at = where + ":" + std::to_string(n);
    Result<int> slots = slots_of(words, at);
    if (!slots) return Error{slots.error()};
    // Expanded from the line's start, so the hostlist's columns are the line's.
    Result<std::vector<std::string>> names =
        hostlist_expand(std::string_view(line).substr(0, words[0].column - 1 + words[0].text.size()));
    if (!names) return Error{at + ": " + names.error()};
    const int per_name = std::max(*slots, 1);
    // Checked before placing, so a long expansion or a large slots= fails without building ranks.
    const int64_t first = static_cast<int64_t>(gpus.size()), last = first + static_cast<int64_t>(names->size()) * per_name - 1;
    if (last >= world)
      return Error{at + ": the line places " +
                   (first == last ? "rank " + std::to_string(first) : "ranks " + std::to_string(first) + "-" + std::to_string(last)) +
                   ", the job has " + std::to_string(world) + " ranks (0-" + std::to_string(world - 1) + ")"};
    for (const std::string& host : *names) {
      std::optional<int> h = c.host_index(host);
      if (!h) return Error{at + ": " + no_host(c, host)};
      const std::vector<VertexId>& hg = c.hosts()[static_cast<size_t>(*h)].gpus;
      int& k = used[static_cast<size_t>(*h)];
      const int total = static_cast<int>(hg.size());
      if (*slots == 0 && k == total)
        return Error{at + ": " + host + " is listed more often than it has GPUs (" + std::to_string(total) + ")"};
      if (k + per_name > total)
        return Error{at + ": slots=" + std::to_string(*slots) + " is more than the " +
                     (k == 0 ? std::to_string(total) + " GPUs of " + host
                             : std::to_string(total - k) + " GPUs " + host + " has left (of " + std::to_string(total) + ")")};
      for (int j = 0; j < per_name; ++j) {
        gpus.push_back(hg[static_cast<size_t>(k++)]);
        line_of.push_back(n);
      }
    }
  }
  Result<Layout> out =
      finish(std::move(gpus), c, world, where, [&](int r) { return where + ":" + std::to_string(line_of[static_cast<size_t>(r)]); });
  if (out) out->line_of_rank = std::move(line_of);
  return out;
}

}  // namespace

Result<Layout> layout_default(const Cluster& c, int world) {
  if (world > static_cast<int>(c.gpus().size()))
    return Error{"the job needs " + std::to_string(world) + " GPUs, the cluster has " + std::to_string(c.gpus().size())};
  Layout l;
  l.gpu_of_rank.assign(c.gpus().begin(), c.gpus().begin() + world);
  l.source = "default";
  return l;
}

Result<Layout> layout_parse(const std::string& text, const std::string& where, const Cluster& c, int world) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (text[first] == '{' || text[first] == '[')) {
    Result<nlohmann::json> parsed = json_parse_text(text, where);
    if (!parsed) return Error{parsed.error()};
    nlohmann::json doc = std::move(*parsed);
    if (doc.is_array()) doc = {{"ranks", doc}};
    return from_json(doc, where, c, world);
  }
  return from_host_list(text, where, c, world);
}

Result<Layout> layout_load(const std::string& path, const Cluster& c, int world) {
  Result<std::string> text = text_read_file(path);
  if (!text) return Error{text.error()};
  return layout_parse(*text, path, c, world);
}

}  // namespace topoplan

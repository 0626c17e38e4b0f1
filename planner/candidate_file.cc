#include "planner/candidate_file.h"

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/file_io.h"
#include "base/hostlist.h"
#include "base/json_fields.h"
#include "base/words.h"
#include "planner/host_choice.h"

namespace topoplan {
namespace {

// The host names of one JSON line: {"id": ..., "hosts": "h[1-4]" or ["h1", ...]}.
Result<std::vector<std::string>> json_line(const std::string& text, const std::string& where, std::string& id) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return Error{where + ": column " + std::to_string(e.byte) +
                 ": not valid JSON (a line starting with { is one object: {\"id\": ..., \"hosts\": ...})"};
  }
  std::string error;
  Fields f(doc, "", {"id", "hosts"}, &error);
  if (const nlohmann::json* v = f.get("id", false)) {
    if (v->is_string() && !v->get<std::string>().empty())
      id = v->get<std::string>();
    else if (v->is_number_integer())
      id = std::to_string(v->get<int64_t>());
    else
      f.fail("id", "expected a non-empty string or a whole number, got " + json_shown(*v));
  }
  const nlohmann::json* hosts = f.get("hosts", true);
  if (!f.ok()) return Error{where + ": " + error};
  if (hosts->is_string()) {
    Result<std::vector<std::string>> names = hostlist_expand(hosts->get<std::string>());
    if (!names) return Error{where + ": hosts: " + names.error()};
    return names;
  }
  if (!hosts->is_array()) return Error{where + ": hosts: expected a hostlist or an array of names, got " + json_shown(*hosts)};
  std::vector<std::string> names;
  for (size_t i = 0; i < hosts->size(); ++i) {
    if (!(*hosts)[i].is_string())
      return Error{where + ": " + json_indexed("hosts", i) + ": expected a host name, got " + json_shown((*hosts)[i])};
    names.push_back((*hosts)[i].get<std::string>());
  }
  return names;
}

}  // namespace

Result<std::vector<CandidateAllocation>> candidates_parse(const Cluster& c, const std::string& text,
                                                          const std::string& where) {
  std::vector<CandidateAllocation> out;
  std::map<std::string, int> ids;  // id -> line
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::string entry(trim(line));
    if (entry.empty() || entry[0] == '#') continue;
    const std::string at = where + ":" + std::to_string(n);
    CandidateAllocation cand;
    cand.line = n;
    cand.id = "line " + std::to_string(n);
    Result<std::vector<std::string>> names =
        entry[0] == '{' ? json_line(entry, at, cand.id) : hostlist_expand(entry);
    if (!names) return Error{names.error().starts_with(at) ? names.error() : at + ": " + names.error()};
    if (names->empty()) return Error{at + ": no hosts"};
    Result<std::vector<int>> hosts = hosts_by_name(c, *names);
    if (!hosts) return Error{at + ": " + hosts.error()};
    cand.hosts = std::move(*hosts);
    if (auto [it, added] = ids.try_emplace(cand.id, n); !added)
      return Error{at + ": id '" + cand.id + "' is already used on line " + std::to_string(it->second)};
    out.push_back(std::move(cand));
  }
  if (out.empty()) return Error{where + ": no candidates (one hostlist or JSON object per line)"};
  return out;
}

Result<std::vector<CandidateAllocation>> candidates_load(const Cluster& c, const std::string& path) {
  Result<std::string> text = text_read_file(path);
  RETURN_IF_ERROR(text);
  return candidates_parse(c, *text, path);
}

}  // namespace topoplan

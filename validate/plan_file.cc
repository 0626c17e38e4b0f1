#include "validate/plan_file.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string_view>

#include "base/json_fields.h"
#include "base/limits.h"
#include "base/suggest.h"
#include "base/units.h"
#include "base/words.h"
#include "planner/group_ref.h"
#include "planner/plan_json.h"

namespace topoplan {
namespace {

std::string kinds_of(const ValidatePlan& plan) {
  std::string s;
  for (const ValidateKind& k : plan.kinds) s += (s.empty() ? "" : ", ") + k.kind;
  return s.empty() ? "none" : s;
}

}  // namespace

Result<ValidatePlan> validate_plan_parse(const std::string& text, const std::string& source) {
  Result<nlohmann::json> doc = plan_document_parse(text, source);
  RETURN_IF_ERROR(doc);
  const nlohmann::json& j = *doc;
  auto bad = [&](const std::string& field, const std::string& what) {
    return Error{source + ": " + field + ": " + what};
  };
  ValidatePlan plan;
  plan.source = source;
  if (j.contains("job") && j["job"].is_object() && j["job"].contains("name") && j["job"]["name"].is_string())
    plan.job = j["job"]["name"].get<std::string>();

  // Ranks: rank i at index i, each with its host and GPU.
  if (!j.contains("ranks") || !j["ranks"].is_array() || j["ranks"].empty())
    return bad("ranks", "expected a list of ranks with their host and GPU");
  if (j["ranks"].size() > static_cast<size_t>(limits::kMaxRanks))
    return bad("ranks",
               std::to_string(j["ranks"].size()) + " ranks, over the limit of " + std::to_string(limits::kMaxRanks));
  for (size_t i = 0; i < j["ranks"].size(); ++i) {
    const nlohmann::json& r = j["ranks"][i];
    const std::string at = json_indexed("ranks", i);
    if (!r.is_object() || !r.contains("rank") || !r["rank"].is_number_integer() ||
        r["rank"].get<long long>() != static_cast<long long>(i))
      return bad(at, "expected {\"rank\": " + std::to_string(i) + ", \"host\", \"gpu\"}, got " + json_shown(r));
    if (!r.contains("host") || !r["host"].is_string() || r["host"].get<std::string>().empty())
      return bad(at + ".host", "expected a host name");
    if (!r.contains("gpu") || !r["gpu"].is_number_integer() || r["gpu"].get<long long>() < 0)
      return bad(at + ".gpu", "expected the GPU's local index, a whole number from 0");
    plan.host_of_rank.push_back(r["host"].get<std::string>());
    plan.gpu_of_rank.push_back(static_cast<int>(r["gpu"].get<long long>()));
  }
  plan.world = static_cast<int>(plan.host_of_rank.size());

  // Groups of each kind: every rank exactly once.
  if (!j.contains("groups") || !j["groups"].is_object()) return bad("groups", "expected the rank groups of each kind");
  for (const GroupKind& k : group_kinds()) {
    if (!j["groups"].contains(k.token)) continue;
    const nlohmann::json& list = j["groups"][k.token];
    const std::string at = std::string("groups.") + k.token;
    if (!list.is_array()) return bad(at, "expected a list of groups, got " + json_shown(list));
    ValidateKind vk{k.kind, k.token, {}, {}};
    std::vector<char> seen(static_cast<size_t>(plan.world), 0);
    for (size_t g = 0; g < list.size(); ++g) {
      if (!list[g].is_array() || list[g].empty()) return bad(json_indexed(at, g), "expected a list of ranks");
      std::vector<int> ranks;
      for (const nlohmann::json& r : list[g]) {
        if (!r.is_number_integer() || r.get<long long>() < 0 || r.get<long long>() >= plan.world)
          return bad(json_indexed(at, g),
                     "rank " + json_shown(r) + " is outside the world of " + std::to_string(plan.world));
        const int rank = static_cast<int>(r.get<long long>());
        if (seen[static_cast<size_t>(rank)]++)
          return bad(json_indexed(at, g), "rank " + std::to_string(rank) + " is in two groups");
        ranks.push_back(rank);
      }
      if (ranks.size() != list[0].size())
        return bad(json_indexed(at, g), "has " + counted(static_cast<int64_t>(ranks.size()), "rank") +
                                            ", group 0 has " + std::to_string(list[0].size()));
      vk.groups.push_back(std::move(ranks));
    }
    if (std::find(seen.begin(), seen.end(), 0) != seen.end())
      return bad(at,
                 "rank " + std::to_string(std::find(seen.begin(), seen.end(), 0) - seen.begin()) + " is in no group");
    plan.groups.push_back(vk);
    if (vk.groups.front().size() >= 2) plan.kinds.push_back(std::move(vk));
  }

  // The collectives of each kind, from the plan's score.
  const nlohmann::json* items =
      j.contains("score") && j["score"].is_object() && j["score"].contains("items") ? &j["score"]["items"] : nullptr;
  if (!items || !items->is_array()) return bad("score.items", "expected the job's collectives per step");
  for (size_t i = 0; i < items->size(); ++i) {
    const nlohmann::json& it = (*items)[i];
    const std::string at = json_indexed("score.items", i);
    if (!it.is_object() || !it.contains("group") || !it["group"].is_string() || !it.contains("op") ||
        !it["op"].is_string() || !it.contains("bytes") || !it["bytes"].is_number())
      return bad(at, "expected {\"group\", \"op\", \"bytes\"}, got " + json_shown(it));
    std::optional<CollectiveOp> op = collective_op_from(it["op"].get<std::string>());
    if (!op || *op == CollectiveOp::broadcast || *op == CollectiveOp::reduce)
      return bad(at + ".op", "expected all_reduce, all_gather, reduce_scatter, alltoall or sendrecv, got '" +
                                 it["op"].get<std::string>() + "'");
    const double bytes = it["bytes"].get<double>();
    if (!(bytes > 0) || bytes > limits::kMaxBytes)
      return bad(at + ".bytes", "expected a size above 0, got " + json_shown(it["bytes"]));
    for (ValidateKind& k : plan.kinds) {
      if (k.token != it["group"].get<std::string>()) continue;
      const PlannedCollective c{*op, bytes};
      if (std::none_of(k.collectives.begin(), k.collectives.end(),
                       [&](const PlannedCollective& x) { return x.op == c.op && x.bytes == c.bytes; }))
        k.collectives.push_back(c);
    }
  }
  // Groups the job issues nothing on (expert TP of a dense model) have nothing to run.
  std::erase_if(plan.kinds, [](const ValidateKind& k) { return k.collectives.empty(); });
  return plan;
}

Result<ValidatePlan> validate_plan_read(const std::string& path) {
  Result<std::string> text = text_read_file(path);
  RETURN_IF_ERROR(text);
  return validate_plan_parse(*text, path);
}

Result<std::vector<ValidateKind>> validate_kinds_select(const ValidatePlan& plan, const std::string& list) {
  if (list.empty()) return plan.kinds;
  std::vector<ValidateKind> out;
  std::vector<std::string> names;
  for (const GroupKind& k : group_kinds()) names.push_back(k.kind);
  size_t begin = 0;
  while (begin <= list.size()) {
    const size_t comma = std::min(list.find(',', begin), list.size());
    const std::string name = list.substr(begin, comma - begin);
    begin = comma + 1;
    if (group_token(name).empty())
      return Error{"--kinds: unknown kind '" + name + "'" + did_you_mean(name, names) + " (the plan has " +
                   kinds_of(plan) + ")"};
    auto it = std::find_if(plan.kinds.begin(), plan.kinds.end(), [&](const ValidateKind& k) { return k.kind == name; });
    if (it == plan.kinds.end())
      return Error{"--kinds: the plan has no collectives on " + name + " groups of two or more ranks (it has " +
                   kinds_of(plan) + ")"};
    if (std::none_of(out.begin(), out.end(), [&](const ValidateKind& k) { return k.kind == name; })) out.push_back(*it);
  }
  return out;
}

Result<double> validate_size_parse(const std::string& text) {
  // nccl-tests' own sizes (src/common.cu parsesize): a number and K, M, G or T, binary.
  double scale = 1;
  std::string number = text;
  if (!text.empty() && std::string_view("KkMmGgTt").find(text.back()) != std::string_view::npos &&
      text.find_first_not_of("0123456789") == text.size() - 1) {
    const std::string_view units = "KMGT";
    const size_t power = units.find(static_cast<char>(std::toupper(static_cast<unsigned char>(text.back())))) + 1;
    scale = std::pow(1024.0, static_cast<double>(power));
    number = text.substr(0, text.size() - 1) + "B";
  }
  Result<double> b = parse_bytes(number);
  RETURN_IF_ERROR(b);
  const double bytes = *b * scale;
  if (bytes < 4 || std::fmod(bytes, 4) != 0)
    return Error{text + " is not a whole number of 4-byte elements (float32), at least 4 B"};
  return bytes;
}

Result<std::vector<double>> validate_sizes_parse(const std::string& list) {
  std::vector<double> out;
  size_t begin = 0;
  while (begin <= list.size()) {
    const size_t comma = std::min(list.find(',', begin), list.size());
    Result<double> b = validate_size_parse(list.substr(begin, comma - begin));
    RETURN_IF_ERROR(b);
    out.push_back(*b);
    begin = comma + 1;
  }
  return out;
}

}  // namespace topoplan

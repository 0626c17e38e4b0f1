#include "planner/group_ref.h"

#include <algorithm>
#include <vector>

#include "base/suggest.h"

namespace topoplan {
namespace {

constexpr GroupKind kKinds[] = {{"tp", "tp"},        {"cp", "cp"},         {"dp", "dp-cp"},     {"pp", "pp"},
                                {"ep", "expert.ep"}, {"etp", "expert.tp"}, {"edp", "expert.dp"}};

std::string kind_names() {
  std::string s;
  for (const GroupKind& k : kKinds) s += (s.empty() ? "" : ", ") + std::string(k.kind);
  return s;
}

}  // namespace

std::span<const GroupKind> group_kinds() { return kKinds; }

std::string_view group_token(std::string_view kind) {
  for (const GroupKind& k : kKinds)
    if (kind == k.kind) return k.token;
  return "";
}

std::string_view group_kind(std::string_view token) {
  for (const GroupKind& k : kKinds)
    if (token == k.token) return k.kind;
  return "";
}

Result<GroupRef> group_ref_parse(std::string_view text) {
  const size_t colon = text.find(':');
  const std::string kind(text.substr(0, colon));
  if (colon == std::string_view::npos)
    return Error{"--group: expected KIND:INDEX such as tp:3 (kinds: " + kind_names() + "), got '" + std::string(text) +
                 "'"};
  if (group_token(kind).empty()) {
    std::vector<std::string> kinds;
    for (const GroupKind& k : kKinds) kinds.push_back(k.kind);
    return Error{"--group: unknown kind '" + kind + "'" + did_you_mean(kind, kinds) + " (kinds: " + kind_names() + ")"};
  }
  const std::string index(text.substr(colon + 1));
  if (index.empty() || index.size() > 9 || index.find_first_not_of("0123456789") != std::string::npos)
    return Error{"--group: expected a group index after '" + kind + ":', got '" + index + "'"};
  return GroupRef{kind, std::stoi(index)};
}

std::string group_kind_name(std::string_view token) {
  const std::string_view kind = group_kind(token);
  return std::string(kind.empty() ? token : kind);
}

std::string group_ref_text(std::string_view token, int index) {
  return group_kind_name(token) + ":" + std::to_string(index);
}

}  // namespace topoplan

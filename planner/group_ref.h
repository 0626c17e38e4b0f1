// Naming one group of a job on the command line: "tp:3" is group 3 of the TP list. The selector
// kinds (tp, cp, dp, pp, ep, etp, edp) and the RankGroups lists they index (dp is the gradient
// group with CP folded in, "dp-cp"; etp, ep and edp the expert ones).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "base/error.h"

namespace topoplan {

struct GroupRef {
  std::string kind;
  int index = 0;
};
// Errors say what is expected.
Result<GroupRef> group_ref_parse(std::string_view text);

struct GroupKind {
  const char* kind;   // the selector's kind, "dp"
  const char* token;  // the group list it indexes, "dp-cp"
};
std::span<const GroupKind> group_kinds();
// The list a kind indexes and back; "" when there is none.
std::string_view group_token(std::string_view kind);
std::string_view group_kind(std::string_view token);
// The kind that indexes `token`'s list ("dp" for "dp-cp"), or the token itself where none does.
std::string group_kind_name(std::string_view token);
// "dp:3": what explain --group takes for group `index` of `token`'s list.
std::string group_ref_text(std::string_view token, int index);

}  // namespace topoplan

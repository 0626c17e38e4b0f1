// Index lists as people type them on command lines: "0-4,8" -> 0 1 2 3 4 8.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace topoplan {

// Comma-separated indices and inclusive ranges, each below `limit`, in the order given; repeats
// and descending ranges are errors that quote the offending item.
Result<std::vector<int>> parse_index_list(std::string_view text, int limit);
// The inverse, sorted, runs folded: 3 0 1 2 8 -> "0-3,8".
std::string format_index_list(std::vector<int> indices);

}  // namespace topoplan

// "did you mean" for mistyped names (presets, subcommands, keys, devices).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace topoplan {

// The closest candidate by edit distance, or "" when none is plausibly meant.
std::string suggest_closest(std::string_view typed, const std::vector<std::string>& candidates);

// ", did you mean 'x'?" or "" — ready to append to an error message.
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates);

// "a, b, c", or with last = " or ": "a, b or c".
std::string names_list(const std::vector<std::string>& names, std::string_view last = ", ");

// "unknown preset 'dgx-h10', did you mean 'dgx-h100'? (presets: dgx-a100, dgx-h100)": what a
// lookup in a table of names says when the name is not there.
std::string unknown_name(std::string_view what, std::string_view typed, const std::vector<std::string>& names,
                         std::string_view names_are);

}  // namespace topoplan

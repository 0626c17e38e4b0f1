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

}  // namespace topoplan

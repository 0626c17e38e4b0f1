// An enum's names as a constexpr array indexed by its value: the name to the value, and every
// name for "expected one of" messages. One place for what each enum's parser would repeat.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace topoplan {

template <typename Enum, size_t N>
std::optional<Enum> enum_from(const std::array<std::string_view, N>& names, std::string_view s) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == s) return static_cast<Enum>(i);
  return std::nullopt;
}

template <size_t N>
std::vector<std::string> enum_names(const std::array<std::string_view, N>& names) {
  return {names.begin(), names.end()};
}

}  // namespace topoplan

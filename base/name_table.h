// A table of named rows (a format family, the presets, a tool's flags): the row for a name and
// every name in the table's order, so that dispatch, help and "did you mean" read the one table.
#pragma once

#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace topoplan {

// The row whose `name` is `name`, or nullptr.
template <typename Table>
auto table_find(const Table& table, std::string_view name) -> decltype(&*std::begin(table)) {
  for (const auto& row : table)
    if (name == row.name) return &row;
  return nullptr;
}

// Every row's name, in the table's order: the list help and errors show.
template <typename Table>
std::vector<std::string> table_names(const Table& table) {
  std::vector<std::string> names;
  for (const auto& row : table) names.emplace_back(row.name);
  return names;
}

}  // namespace topoplan

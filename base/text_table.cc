#include "base/text_table.h"

#include <algorithm>

namespace topoplan {

void TextTable::add(std::vector<std::string> cells, std::string prefix) {
  rows_.push_back(std::move(cells));
  prefixes_.push_back(std::move(prefix));
}

std::string TextTable::str() const {
  std::vector<size_t> width;
  size_t prefix_width = 0;
  for (size_t r = 0; r < rows_.size(); ++r) {
    prefix_width = std::max(prefix_width, prefixes_[r].size());
    if (width.size() < rows_[r].size()) width.resize(rows_[r].size(), 0);
    for (size_t i = 0; i < rows_[r].size(); ++i) width[i] = std::max(width[i], rows_[r][i].size());
  }
  std::string out;
  for (size_t r = 0; r < rows_.size(); ++r) {
    std::string line = prefixes_[r] + std::string(prefix_width - prefixes_[r].size(), ' ');
    const std::vector<std::string>& row = rows_[r];
    for (size_t i = 0; i < row.size(); ++i) {
      const bool to_right = i < align_.size() && align_[i] == Align::right;
      const std::string pad(width[i] - row[i].size(), ' ');
      if (i > 0) line += "  ";
      if (to_right)
        line += pad + row[i];
      else
        line += row[i] + (i + 1 < row.size() ? pad : "");
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace topoplan

// Text tables whose columns are as wide as their widest cell and two spaces apart, so that no
// value ever runs into the next whatever its length (a long link name, a size in bytes).
#pragma once

#include <string>
#include <vector>

namespace topoplan {

class TextTable {
 public:
  enum Align { left, right };
  explicit TextTable(std::vector<Align> align) : align_(std::move(align)) {}

  // One row; `prefix` starts the line ("#" for nccl-tests-style comment lines, "  " to indent)
  // and the prefixes are padded to one width so the columns line up below them.
  void add(std::vector<std::string> cells, std::string prefix = "");
  // Every row, one line each; a trailing left-aligned column is not padded.
  std::string str() const;

 private:
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::string> prefixes_;
};

}  // namespace topoplan

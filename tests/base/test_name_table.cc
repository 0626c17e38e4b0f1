#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "base/name_table.h"

using namespace topoplan;

namespace {
struct Row {
  const char* name;
  int value;
};
constexpr Row kRows[] = {{"slurm-hostfile", 1}, {"torchrun", 2}};
}  // namespace

TEST_CASE("name_table: a row by name, and every name in the table's order") {
  REQUIRE(table_find(kRows, "torchrun") != nullptr);
  CHECK(table_find(kRows, "torchrun")->value == 2);
  CHECK(table_find(kRows, "torch") == nullptr);
  CHECK(table_names(kRows) == std::vector<std::string>{"slurm-hostfile", "torchrun"});
  struct Named {
    std::string name;
  };
  const std::vector<Named> rows = {{"dgx-a100"}, {"dgx-h100"}};
  CHECK(table_find(rows, "dgx-h100") == &rows[1]);
  CHECK(table_names(rows) == std::vector<std::string>{"dgx-a100", "dgx-h100"});
}

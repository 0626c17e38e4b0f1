#include "base/index_list.h"

#include <doctest/doctest.h>

namespace topoplan {

TEST_CASE("index_list: ranges and single indices, in the order given") {
  CHECK(*parse_index_list("0-4,8", 16) == std::vector<int>{0, 1, 2, 3, 4, 8});
  CHECK(*parse_index_list("9,1", 16) == std::vector<int>{9, 1});
  CHECK(*parse_index_list("3-3", 4) == std::vector<int>{3});
}

TEST_CASE("index_list: malformed lists say what is wrong") {
  auto err = [](const char* text) {
    Result<std::vector<int>> r = parse_index_list(text, 16);
    REQUIRE_FALSE(r.ok());
    return r.error();
  };
  CHECK(err("") == "expected indices such as 0-7,12, got an empty list");
  CHECK(err("0-") == "expected an index or a range such as 4-7, got '0-'");
  CHECK(err("a") == "expected an index or a range such as 4-7, got 'a'");
  CHECK(err("1,,2") == "expected an index or a range such as 4-7, got ''");
  CHECK(err("-1") == "expected an index or a range such as 4-7, got '-1'");
  CHECK(err("5-2") == "range '5-2' runs backwards");
  CHECK(err("0-16") == "index 16 in '0-16' is out of range: there are 16 (0-15)");
  CHECK(err("1,0-3") == "index 1 is listed twice");
}

TEST_CASE("index_list: formatted sorted with runs folded, and read back") {
  CHECK(format_index_list({3, 0, 1, 2, 8}) == "0-3,8");
  CHECK(format_index_list({5}) == "5");
  CHECK(format_index_list({}).empty());
  CHECK(format_index_list({1, 3, 5}) == "1,3,5");
  const std::vector<int> many = {9, 10, 11, 2, 4, 5};
  CHECK(*parse_index_list(format_index_list(many), 16) == std::vector<int>{2, 4, 5, 9, 10, 11});
}

}  // namespace topoplan

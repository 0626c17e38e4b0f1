#include "base/words.h"

#include <doctest/doctest.h>

using namespace topoplan;

TEST_CASE("words: a count with its noun, one or many") {
  CHECK(counted(1, "host") == "1 host");
  CHECK(counted(0, "host") == "0 hosts");
  CHECK(counted(16, "more host") == "16 more hosts");
  CHECK(counted(1, "switch", "switches") == "1 switch");
  CHECK(counted(2, "switch", "switches") == "2 switches");
}

TEST_CASE("words: a line's words, blanks and control characters between them") {
  CHECK(words_of(" a\tb\r\n c ") == Words{"a", "b", "c"});
  CHECK(trim("\t x y \r") == "x y");
}

// NameIndex: names held by the caller, found by index across the table's growth; a name taken
// keeps its first index.
#include "base/name_index.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace topoplan {

TEST_CASE("name index: every name found after growth, missing ones not, a repeat keeps the first") {
  std::vector<std::string> names;
  NameIndex index;
  auto name_of = [&](uint32_t i) { return std::string_view(names[i]); };
  for (uint32_t i = 0; i < 5000; ++i) {
    names.push_back("h" + std::to_string(i / 8) + "/gpu" + std::to_string(i % 8));
    CHECK_FALSE(index.insert(names.back(), i, name_of));
  }
  for (uint32_t i = 0; i < names.size(); ++i) CHECK(index.find(names[i], name_of) == i);
  CHECK_FALSE(index.find("h625/gpu0", name_of));
  CHECK_FALSE(index.find("", name_of));
  names.push_back("h3/gpu1");  // taken by index 25
  CHECK(index.insert(names.back(), 5000, name_of) == 25u);
  CHECK(index.find("h3/gpu1", name_of) == 25u);
  CHECK_FALSE(NameIndex().find("h0/gpu0", name_of));
}

TEST_CASE("name index: reserved room holds what it was reserved for") {
  std::vector<std::string> names;
  NameIndex index;
  auto name_of = [&](uint32_t i) { return std::string_view(names[i]); };
  index.reserve(100);
  for (uint32_t i = 0; i < 100; ++i) {
    names.push_back("leaf" + std::to_string(i));
    index.insert(names.back(), i, name_of);
  }
  for (uint32_t i = 0; i < 100; ++i) CHECK(index.find("leaf" + std::to_string(i), name_of) == i);
}

}  // namespace topoplan

// The floors of the tree (README "Layout"): a stage includes only its own folder and those below
// it, so base/ never reaches into topology/ and no stage reaches into cli/. A new arrow up fails
// here with the file and line, before it turns into a cycle.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "tests/support.h"

namespace topoplan {
namespace {

// Each folder and the folders it may include from, besides itself.
const std::map<std::string, std::set<std::string>> kFloors = {
    {"base", {}},
    {"topology", {"base"}},
    {"cost", {"base", "topology"}},
    {"planner", {"base", "topology", "cost"}},
    {"observe", {"base", "topology", "cost", "planner"}},
    {"validate", {"base", "topology", "cost", "planner"}},
    {"cli", {"base", "topology", "cost", "planner", "observe", "validate"}},
};

TEST_CASE("floors: no stage includes a folder above its own") {
  int files = 0;
  for (const auto& [folder, below] : kFloors) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(test::source_dir() / folder)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".cc" && ext != ".h") continue;
      ++files;
      std::ifstream in(entry.path());
      std::string line;
      for (int no = 1; std::getline(in, line); ++no) {
        if (!line.starts_with("#include \"")) continue;
        const std::string target = line.substr(10, line.find('/', 10) - 10);
        if (target == folder || !kFloors.contains(target)) continue;  // own folder, or generated
        INFO(entry.path().lexically_relative(test::source_dir()).string() << ":" << no << ": " << line);
        CHECK(below.contains(target));
      }
    }
  }
  CHECK(files > 100);
}

}  // namespace
}  // namespace topoplan

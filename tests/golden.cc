#include "tests/golden.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/support.h"

namespace topoplan::test {
namespace {

bool updating() {
  const char* v = std::getenv("TOPOPLAN_UPDATE_GOLDEN");
  return v && std::string(v) == "1";
}

// "line 3: expected 'x', got 'y'": enough to see what changed without dumping both files.
std::string first_difference(const std::string& expected, const std::string& actual) {
  std::istringstream e(expected), a(actual);
  std::string le, la;
  for (int line = 1;; ++line) {
    bool more_e = static_cast<bool>(std::getline(e, le)), more_a = static_cast<bool>(std::getline(a, la));
    if (!more_e && !more_a) return "the same lines, different line endings";
    if (!more_e) return "line " + std::to_string(line) + ": expected the end, got '" + la + "'";
    if (!more_a) return "line " + std::to_string(line) + ": expected '" + le + "', got the end";
    if (le != la) return "line " + std::to_string(line) + ": expected '" + le + "', got '" + la + "'";
  }
}

}  // namespace

void check_golden(const std::string& case_dir, const std::string& file, const std::string& actual) {
  const std::filesystem::path path = source_dir() / "tests" / "golden" / case_dir / file;
  if (updating()) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << actual;
    MESSAGE("rewrote " << path.string());
    return;
  }
  INFO("golden file " << path.string() << " (TOPOPLAN_UPDATE_GOLDEN=1 rewrites it)");
  REQUIRE_MESSAGE(std::filesystem::exists(path), "missing");
  const std::string expected = read_file(path);
  const bool same = expected == actual;  // a bool, so a mismatch prints the first difference, not both files
  CHECK_MESSAGE(same, first_difference(expected, actual));
}

}  // namespace topoplan::test

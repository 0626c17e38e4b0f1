#include "base/list_arg.h"

#include <doctest/doctest.h>

#include <fstream>

#include "tests/support.h"

using namespace topoplan;

TEST_CASE("list_arg_entries: inline as a hostlist or comma-separated, or @FILE's lines") {
  CHECK(*list_arg_entries("h[01-03],x", "--nodes", true) == std::vector<std::string>{"h01", "h02", "h03", "x"});
  CHECK(*list_arg_entries("leaf0<->spine3,h001/gpu2", "--exclude", false) ==
        std::vector<std::string>{"leaf0<->spine3", "h001/gpu2"});
  CHECK(list_arg_entries("h[01-", "--nodes", true).error().rfind("--nodes: ", 0) == 0);

  const std::filesystem::path dir = test::temp_dir("list_arg");
  std::ofstream(dir / "hosts.txt") << "# the allocation\nh001  \n\n  h002 # second\n";
  CHECK(*list_arg_entries("@" + (dir / "hosts.txt").string(), "--nodes", false) ==
        std::vector<std::string>{"h001", "h002"});
  std::ofstream(dir / "empty.txt") << "# nothing\n";
  CHECK(list_arg_entries("@" + (dir / "empty.txt").string(), "--nodes", false).error() ==
        "--nodes: " + (dir / "empty.txt").string() + ": no entries");
  CHECK(list_arg_entries("@" + (dir / "missing.txt").string(), "--exclude", false).error() ==
        "--exclude: " + (dir / "missing.txt").string() + ": cannot read");
}

#include <doctest/doctest.h>

#include "base/hostlist.h"

using namespace topoplan;

namespace {

std::vector<std::string> expand(const std::string& text) {
  Result<std::vector<std::string>> r = hostlist_expand(text);
  REQUIRE_MESSAGE(r.ok(), r.error());
  return *r;
}

std::string error_of(const std::string& text) {
  Result<std::vector<std::string>> r = hostlist_expand(text);
  REQUIRE_FALSE(r.ok());
  return r.error();
}

}  // namespace

TEST_CASE("hostlist: Slurm's syntax expands in the order written") {
  CHECK(expand("h001") == std::vector<std::string>{"h001"});
  CHECK(expand("h[0001-0003,0033]") == std::vector<std::string>{"h0001", "h0002", "h0003", "h0033"});
  CHECK(expand("a,b[1-2], c") == std::vector<std::string>{"a", "b1", "b2", "c"});
  // Padding comes from each range's first number; a range may outgrow it.
  CHECK(expand("n[8-11]") == std::vector<std::string>{"n8", "n9", "n10", "n11"});
  CHECK(expand("n[098-101]") == std::vector<std::string>{"n098", "n099", "n100", "n101"});
  // Several groups expand as a product, the leftmost slowest.
  CHECK(expand("r[1-2]-n[01-02]") == std::vector<std::string>{"r1-n01", "r1-n02", "r2-n01", "r2-n02"});
  CHECK(expand("r[1,3]x[5,7-8]") == std::vector<std::string>{"r1x5", "r1x7", "r1x8", "r3x5", "r3x7", "r3x8"});
}

TEST_CASE("hostlist: malformed lists name the column and what was expected") {
  CHECK(error_of("h[3-1]") == "hostlist: column 3: range 3-1 runs backwards");
  CHECK(error_of("h[1-") == "hostlist: column 2: '[' is never closed");
  CHECK(error_of("h[1-2") == "hostlist: column 2: '[' is never closed");
  CHECK(error_of("h1]") == "hostlist: column 3: ']' without '['");
  CHECK(error_of("h[a-2]") == "hostlist: column 3: expected a number inside [...], got 'a'");
  CHECK(error_of("h[1-b]") == "hostlist: column 5: expected a number inside [...], got 'b'");
  CHECK(error_of("h[]") == "hostlist: column 3: empty brackets");
  CHECK(error_of("h[1,]") == "hostlist: column 5: expected a number after ','");
  CHECK(error_of("h[1;2]") == "hostlist: column 4: expected ',' or ']' after a number, got ';'");
  CHECK(error_of("h[1[2]]") == "hostlist: column 4: brackets do not nest");
  CHECK(error_of("a,,b") == "hostlist: column 3: empty host name (between commas or at an end)");
  CHECK(error_of("a,") == "hostlist: column 3: empty host name (between commas or at an end)");
  CHECK(error_of("") == "hostlist: column 1: empty host name");
  CHECK(error_of("my host") == "hostlist: column 3: host names have no spaces");
  CHECK(error_of("h[1-1234567890123456789]") == "hostlist: column 5: host number longer than 18 digits");
  // Expansion is bounded before anything is allocated.
  CHECK(error_of("h[1-999999999999]") == "hostlist: 'h[1-999999999999]' names more than 1000000 hosts");
  CHECK(error_of("a[1-1000]b[1-1000]c[1-1000]") ==
        "hostlist: 'a[1-1000]b[1-1000]c[1-1000]' names more than 1000000 hosts");
}

TEST_CASE("hostlist: compress folds runs and expands back to the same names") {
  CHECK(hostlist_compress({"h001", "h002", "h003", "h007"}) == "h[001-003,007]");
  CHECK(hostlist_compress({"h001"}) == "h001");
  CHECK(hostlist_compress({"a", "h9", "h10", "h11"}) == "a,h[9-11]");
  CHECK(hostlist_compress({"h3", "h2", "h1"}) == "h[3,2,1]");
  CHECK(hostlist_compress({"h09", "h10", "x1", "h11"}) == "h[09-10],x1,h11");
  CHECK(hostlist_compress({}).empty());
  for (const std::vector<std::string>& names :
       {std::vector<std::string>{"h0001", "h0002", "h0016", "h0033", "h0034", "gpu7"},
        std::vector<std::string>{"n8", "n9", "n10", "n010", "n011", "n9"}, std::vector<std::string>{"a1b", "a1b", "c"}})
    CHECK(expand(hostlist_compress(names)) == names);
}

TEST_CASE("hostlist: names are bounded in length and in total, not only in count") {
  CHECK(error_of(std::string(300, 'x') + "[1-2]").find("a host name of 301 characters; names have at most 255") !=
        std::string::npos);
  // Found by fuzz/hostlist: 999,999 names of 34 characters took 20 s under ASan.
  CHECK(error_of(std::string(30, 'r') + "[01-999999]x") == "hostlist: expands to more than 16 MiB of host names");
  CHECK(expand("node[000001-999999]").size() == 999999);  // a million short names are fine
  // Many huge ranges in one group must not wrap their count around to a small number.
  std::string group = "h[";
  for (int i = 0; i < 20; ++i) group += std::string(i ? "," : "") + "0-999999999999999999";
  CHECK(error_of(group + "]").find("names more than 1000000 hosts") != std::string::npos);
}

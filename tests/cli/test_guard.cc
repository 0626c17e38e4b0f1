#include <doctest/doctest.h>

#include <new>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <variant>

#include "cli/guard.h"
#include "tests/support.h"

using namespace topoplan::cli;

namespace {

struct Guarded {
  int code;
  std::string err;
};

template <typename F>
Guarded guarded(F throwing) {
  const char* argv[] = {"/path/to/topoplan", "topo", "show", "my cluster.json"};
  std::ostringstream err;
  int code = run_guarded(
      [&]() -> int {
        throwing();
        return 0;
      },
      4, argv, err);
  return {code, err.str()};
}

}  // namespace

TEST_CASE("guard: the environment's exceptions are bad input, exit 2, one line") {
  Guarded g =
      guarded([] { throw std::system_error(std::make_error_code(std::errc::no_such_file_or_directory), "x.json"); });
  CHECK(g.code == 2);
  CHECK(g.err.starts_with("topoplan: error: x.json"));
  CHECK(g.err.find("please report") == std::string::npos);
  g = guarded([] { throw std::runtime_error("disk on fire"); });
  CHECK(g.code == 2);
  CHECK(g.err == "topoplan: error: disk on fire\n");
}

TEST_CASE("guard: bugs are internal errors, exit 70, with the command line to report") {
  for (auto [thrower, what] : std::initializer_list<std::pair<void (*)(), const char*>>{
           {[] { throw std::out_of_range("stoul"); }, "std::out_of_range: stoul"},
           {[] { throw std::bad_alloc(); }, "out of memory"},
           {[] { (void)std::get<int>(std::variant<int, double>(1.5)); }, "bad_variant_access"},
           {[] { (void)std::optional<int>().value(); }, "bad_optional_access"},
           {[] { throw 42; }, "unknown type"}}) {
    Guarded g = guarded(thrower);
    CAPTURE(g.err);
    CHECK(g.code == kExitInternal);
    CHECK(g.err.starts_with("topoplan: internal error: "));
    CHECK(g.err.find(what) != std::string::npos);
    CHECK(g.err.find("please report") != std::string::npos);
    // argv[0] as "topoplan", an argument with a space quoted so it can be pasted back.
    CHECK(g.err.find("topoplan topo show 'my cluster.json'") != std::string::npos);
  }
}

TEST_CASE("guard: a normal return passes through") {
  const char* argv[] = {"topoplan"};
  std::ostringstream err;
  CHECK(run_guarded([] { return 1; }, 1, argv, err) == 1);
  CHECK(err.str().empty());
}

TEST_CASE("cli: a GPU index past any integer is out of range, not an abort") {
  auto r = topoplan::test::run_topoplan("topo path dgx-h100:2 99999999999999999999 0");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "topoplan: error: GPU index 99999999999999999999 is out of range: the cluster has 16 GPUs\n");
}

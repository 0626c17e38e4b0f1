#include "cli/guard.h"

#include <cxxabi.h>

#include <cstdlib>
#include <exception>
#include <iostream>
#include <memory>
#include <new>
#include <ostream>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

#include "base/shell_words.h"
#include "cli/tool.h"

namespace topoplan::cli {
namespace {

// The command line as a shell would take it back.
std::string command_line(int argc, const char* const* argv) {
  std::vector<std::string> words = {"topoplan"};  // the path the binary was run from is no help in a report
  for (int i = 1; i < argc; ++i) words.push_back(argv[i] ? argv[i] : "");
  return shell_line(words);
}

int internal(std::ostream& err, const std::string& what, int argc, const char* const* argv) {
  err << "topoplan: internal error: " << what << "\n"
      << "This is a bug in topoplan; please report it with the command line:\n  " << command_line(argc, argv) << "\n";
  return kExitInternal;
}

// "std::out_of_range": the type is the first thing a bug report needs.
std::string type_name(const std::type_info& t) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(t.name(), nullptr, nullptr, &status), std::free);
  return status == 0 && name ? name.get() : t.name();
}

// What the exception in flight says, and whether input or environment (not a bug) can cause it.
struct Caught {
  std::string what;
  bool bad_input = false;
};

Caught describe(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::bad_alloc&) {
    // Every input is checked against limits.h before anything is built; running out of memory
    // anyway means a check is missing.
    return {"out of memory", false};
  } catch (const std::runtime_error& x) {
    // Files, system calls, locale and iostream failures: the environment, not the program.
    return {x.what(), true};
  } catch (const std::exception& x) {
    return {type_name(typeid(x)) + ": " + x.what(), false};
  } catch (...) {
    return {"an exception of unknown type", false};
  }
}

int guard_argc = 0;
const char* const* guard_argv = nullptr;

}  // namespace

int run_guarded(const std::function<int()>& body, int argc, const char* const* argv, std::ostream& err) {
  try {
    return body();
  } catch (...) {
    Caught c = describe(std::current_exception());
    if (c.bad_input) return fail(err, c.what);
    return internal(err, c.what, argc, argv);
  }
}

void guard_terminate(int argc, const char* const* argv) {
  guard_argc = argc;
  guard_argv = argv;
  std::set_terminate([] {
    std::string what = "terminate called";
    if (std::exception_ptr e = std::current_exception())
      what = describe(e).what + " (thrown where no exception may pass)";
    internal(std::cerr, what, guard_argc, guard_argv);
    std::cerr.flush();
    std::_Exit(kExitInternal);
  });
}

}  // namespace topoplan::cli

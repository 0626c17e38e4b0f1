// The command's last line of defence: whatever escapes a tool (an exception from a library, a
// bug) becomes one error line and an exit code, never an abort and a core dump.
#pragma once

#include <functional>
#include <iosfwd>

namespace topoplan::cli {

// sysexits.h EX_SOFTWARE: an internal software error, as opposed to bad input (2).
inline constexpr int kExitInternal = 70;

// Runs `body` and returns its exit code. An exception the environment or input can cause
// (std::runtime_error and its kin: files, system calls) prints "topoplan: error: ..." and returns
// 2; any other (std::logic_error, std::bad_alloc, a bad std::variant or std::optional access, an
// unknown type) is a bug: "topoplan: internal error: ..." with a request to report it and the
// command line from argv, and returns kExitInternal.
int run_guarded(const std::function<int()>& body, int argc, const char* const* argv, std::ostream& err);

// Makes std::terminate (an exception thrown where none may pass, such as from a destructor) print
// the internal-error message and exit kExitInternal instead of aborting. For main() only.
void guard_terminate(int argc, const char* const* argv);

}  // namespace topoplan::cli

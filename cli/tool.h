// The topoplan command is a table of subcommands (as ninja's -t tools): each tool adds its options
// to its CLI11 subcommand and returns what to run once the command line has been parsed.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace topoplan::cli {

// Exit codes (DESIGN.md): 0 ok, 1 the check failed, 2 bad input.
inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitBadInput = 2;

using Run = std::function<int(std::ostream& out, std::ostream& err)>;

struct Tool {
  const char* name;
  const char* summary;
  Run (*setup)(CLI::App& sub);
};

// Every subcommand, in the order `topoplan --help` lists them (cli/tools.cc).
const std::vector<Tool>& tools();

// Parses argv, runs the chosen tool, returns the exit code. Streams are parameters for tests.
int cli_main(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

// "topoplan: error: <message>" on err, returns kExitBadInput.
int fail(std::ostream& err, const std::string& message);

}  // namespace topoplan::cli

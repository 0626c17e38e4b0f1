// Integer options read as text and checked here rather than by CLI11, so that a bad value gets a
// message that names the option and its range ("--tp: expected an integer from 1 to 1048576, got
// 99999999999") instead of "Could not convert" or a range printed with 300 digits.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace topoplan::cli {

CLI::Option* add_count_option(CLI::App& app, const std::string& name, int& value, const std::string& help, int minimum,
                              int maximum);

}  // namespace topoplan::cli

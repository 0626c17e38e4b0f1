#include "cli/count_option.h"

#include <charconv>
#include <cstdint>

namespace topoplan::cli {

CLI::Option* add_count_option(CLI::App& app, const std::string& name, int& value, const std::string& help, int minimum,
                              int maximum) {
  auto parse = [&value, name, minimum, maximum](const std::string& text) {
    int64_t n = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || n < minimum || n > maximum)
      throw CLI::ValidationError(name, "expected an integer from " + std::to_string(minimum) + " to " +
                                           std::to_string(maximum) + ", got '" + text + "'");
    value = static_cast<int>(n);
  };
  CLI::Option* option = app.add_option_function<std::string>(name, parse, help)->type_name("INT");
  // A default outside the range is a sentinel ("all"), which the help text explains instead.
  if (value >= minimum && value <= maximum) option->default_str(std::to_string(value));
  return option;
}

}  // namespace topoplan::cli

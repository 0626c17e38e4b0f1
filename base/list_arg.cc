#include "base/list_arg.h"

#include <fstream>
#include <sstream>

#include "base/hostlist.h"
#include "base/words.h"

namespace topoplan {

Result<std::vector<std::string>> list_arg_entries(const std::string& arg, const std::string& option, bool hostlist) {
  if (arg.empty() || arg[0] != '@') {
    if (!hostlist) {
      std::vector<std::string> out;
      std::stringstream in(arg);
      for (std::string item; std::getline(in, item, ',');) out.push_back(item);
      return out;
    }
    Result<std::vector<std::string>> names = hostlist_expand(arg);
    if (!names) return Error{option + ": " + names.error()};
    return names;
  }
  const std::string path = arg.substr(1);
  std::ifstream in(path);
  if (!in) return Error{option + ": " + path + ": cannot read"};
  std::vector<std::string> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    if (std::string_view entry = trim(line); !entry.empty()) out.emplace_back(entry);
  }
  if (out.empty()) return Error{option + ": " + path + ": no entries"};
  return out;
}

}  // namespace topoplan

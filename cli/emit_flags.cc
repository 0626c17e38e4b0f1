#include "cli/emit_flags.h"

#include "base/suggest.h"

namespace topoplan::cli {

void emit_flags_add(CLI::App& app, std::string& emit, std::string& out_dir, const std::string& out_help) {
  app.add_option(
      "--emit", emit,
      "files to write into -o DIR: " + names_list(emit_list_names()) + " (comma-separated; docs/plan-outputs.md)");
  app.add_option("-o,--output", out_dir, out_help);
}

Result<EmitList> emit_flags(const std::string& emit, const std::string& out_dir) {
  if (emit.empty()) return EmitList{!out_dir.empty(), {}};
  Result<EmitList> list = emit_list_parse(emit);
  if (!list) return Error{"--emit: " + list.error()};
  if (out_dir.empty()) return Error{"--emit needs -o DIR to write the files into"};
  return list;
}

}  // namespace topoplan::cli

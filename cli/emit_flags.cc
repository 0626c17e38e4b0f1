#include "cli/emit_flags.h"

namespace topoplan::cli {

Result<EmitList> emit_flags(const std::string& emit, const std::string& out_dir) {
  if (emit.empty()) return EmitList{!out_dir.empty(), {}};
  Result<EmitList> list = emit_list_parse(emit);
  if (!list) return Error{"--emit: " + list.error()};
  if (out_dir.empty()) return Error{"--emit needs -o DIR to write the files into"};
  return list;
}

}  // namespace topoplan::cli

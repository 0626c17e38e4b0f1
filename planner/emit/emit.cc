#include "planner/emit/emit.h"

#include "base/name_table.h"
#include "base/suggest.h"
#include "base/words.h"
#include "planner/emit/formats.h"

namespace topoplan {
namespace {

struct Format {
  const char* name;
  EmitResult (*write)(const EmitInput&, const RankPlacement&);
};

// The order of `--emit`'s help and of emit_format_names().
constexpr Format kFormats[] = {
    {"slurm-hostfile", emit_slurm_hostfile},
    {"ompi-rankfile", emit_ompi_rankfile},
    {"torchrun", emit_torchrun},
    {"megatron", emit_megatron},
    {"env", emit_env},
};

Error unknown(std::string_view name) {
  return Error{unknown_name("output format", name, emit_format_names(), "formats")};
}

}  // namespace

const std::vector<std::string>& emit_format_names() {
  static const std::vector<std::string> names = table_names(kFormats);
  return names;
}

Result<std::vector<std::string>> emit_formats_parse(std::string_view list) {
  std::vector<std::string> out;
  if (trim(list).empty()) return Error{"no output format given (formats: " + names_list(emit_format_names()) + ")"};
  for (size_t start = 0, entry = 1;; ++entry) {
    size_t comma = list.find(',', start);
    std::string_view name = trim(list.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (name.empty())
      return Error{"output format " + std::to_string(entry) + " of '" + std::string(list) +
                   "' is empty (formats are separated by single commas)"};
    if (!table_find(kFormats, name)) return unknown(name);
    for (const std::string& seen : out)
      if (seen == name) return Error{"output format '" + seen + "' is listed twice"};
    out.emplace_back(name);
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

Result<std::vector<EmittedFile>> emit(std::string_view format, const EmitInput& in) {
  const Format* f = table_find(kFormats, format);
  if (!f) return unknown(format);
  Result<RankPlacement> placement = placement_of(in);
  RETURN_IF_ERROR(placement);
  return f->write(in, *placement);
}

}  // namespace topoplan

#include "planner/emit/emit.h"

#include <algorithm>

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

// The plan file's name in --emit's list; plan writes it, not an emitter.
constexpr const char* kPlanFile = "json";

Error unknown(std::string_view name) {
  return Error{unknown_name("output format", name, emit_format_names(), "formats")};
}

}  // namespace

const std::vector<std::string>& emit_format_names() {
  static const std::vector<std::string> names = table_names(kFormats);
  return names;
}

std::vector<std::string> emit_list_names() {
  std::vector<std::string> names = {kPlanFile};
  names.insert(names.end(), emit_format_names().begin(), emit_format_names().end());
  return names;
}

Result<EmitList> emit_list_parse(std::string_view list) {
  const std::vector<std::string> names = emit_list_names();
  if (trim(list).empty()) return Error{"no output format given (formats: " + names_list(names) + ")"};
  EmitList out;
  std::vector<std::string_view> seen;
  for (size_t start = 0, entry = 1;; ++entry) {
    size_t comma = list.find(',', start);
    std::string_view name = trim(list.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (name.empty())
      return Error{"output format " + std::to_string(entry) + " of '" + std::string(list) +
                   "' is empty (formats are separated by single commas)"};
    if (std::find(names.begin(), names.end(), name) == names.end())
      return Error{unknown_name("output format", name, names, "formats")};
    if (std::find(seen.begin(), seen.end(), name) != seen.end())
      return Error{"output format '" + std::string(name) + "' is listed twice"};
    seen.push_back(name);
    if (name == kPlanFile)
      out.plan_file = true;
    else
      out.formats.emplace_back(name);
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

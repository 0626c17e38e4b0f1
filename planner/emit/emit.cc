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
  bool container = false;  // runs EmitLaunch's image and command
};

// The order of `--emit`'s help and of emit_format_names().
constexpr Format kFormats[] = {
    {"slurm-hostfile", emit_slurm_hostfile},
    {"ompi-rankfile", emit_ompi_rankfile},
    {"torchrun", emit_torchrun},
    {"megatron", emit_megatron},
    {"env", emit_env},
    {"jobset", emit_jobset, true},
    {"pytorchjob", emit_pytorchjob, true},
    {"mpijob", emit_mpijob, true},
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

const std::vector<std::string>& emit_container_formats() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Format& f : kFormats)
      if (f.container) out.emplace_back(f.name);
    return out;
  }();
  return names;
}

Result<void> emit_launch_check(std::string_view format, const EmitLaunch& launch) {
  if (launch.image.empty() || launch.command.empty())
    return Error{std::string(format) +
                 " needs the container image (--image) and the command every rank runs (after --, e.g. -- python "
                 "pretrain_gpt.py ...)"};
  // A LocalQueue is an object, named by a DNS label (RFC 1123).
  const std::string& q = launch.queue;
  const bool label = q.size() <= 63 && std::all_of(q.begin(), q.end(), [](char ch) {
                       return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-';
                     });
  if (!q.empty() && (!label || q.front() == '-' || q.back() == '-'))
    return Error{"--queue '" + q +
                 "': a Kueue LocalQueue's name is at most 63 lower-case letters, digits and '-', starting and ending "
                 "with a letter or digit"};
  return {};
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

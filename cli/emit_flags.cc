#include "cli/emit_flags.h"

#include <algorithm>

#include "base/suggest.h"

namespace topoplan::cli {

void emit_flags_add(CLI::App& app, EmitFlags& flags, const std::string& out_help) {
  app.add_option(
      "--emit", flags.emit,
      "files to write into -o DIR: " + names_list(emit_list_names()) + " (comma-separated; docs/plan-outputs.md)");
  app.add_option("-o,--output", flags.out_dir, out_help);
  const std::string formats = names_list(emit_container_formats());
  app.add_option("--image", flags.launch.image, "the container image the pods of " + formats + " run");
  app.add_option("--queue", flags.launch.queue,
                 "Kueue's LocalQueue for " + formats + " (the label kueue.x-k8s.io/queue-name)");
  app.add_option("command", flags.launch.command,
                 "what every rank of " + formats + " runs, after -- (e.g. -- python pretrain_gpt.py ...)");
}

Result<EmitList> emit_flags(const EmitFlags& flags) {
  Result<EmitList> list = flags.emit.empty() ? EmitList{!flags.out_dir.empty(), {}} : emit_list_parse(flags.emit);
  if (!list) return Error{"--emit: " + list.error()};
  if (!flags.emit.empty() && flags.out_dir.empty()) return Error{"--emit needs -o DIR to write the files into"};
  const std::vector<std::string>& containers = emit_container_formats();
  const auto runs =
      std::find_first_of(list->formats.begin(), list->formats.end(), containers.begin(), containers.end());
  const bool launch = !flags.launch.image.empty() || !flags.launch.command.empty() || !flags.launch.queue.empty();
  if (runs == list->formats.end() && launch)
    return Error{"--image, --queue and a command after -- are for --emit " + names_list(containers) +
                 " only; no such format is asked for"};
  if (runs != list->formats.end())
    if (Result<void> ok = emit_launch_check("--emit " + *runs, flags.launch); !ok) return Error{ok.error()};
  list->launch = flags.launch;
  return list;
}

}  // namespace topoplan::cli

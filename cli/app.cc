#include <ostream>

#include "base/suggest.h"
#include "cli/guard.h"
#include "cli/tool.h"

namespace topoplan::cli {
namespace {

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  return names;
}

// The innermost subcommand that was selected on the command line.
const CLI::App* deepest(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands())
    if (sub->parsed()) return deepest(*sub);
  return &app;
}

}  // namespace

int fail(std::ostream& err, const std::string& message) {
  err << "topoplan: error: " << message << "\n";
  return kExitBadInput;
}

namespace {

int cli_main_unguarded(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"topoplan: place the ranks of a distributed training job on a cluster, and say why"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "topoplan 0.1");
  std::vector<std::pair<CLI::App*, Run>> runs;
  for (const Tool& tool : tools()) {
    CLI::App* sub = app.add_subcommand(tool.name, tool.summary);
    runs.emplace_back(sub, tool.setup(*sub));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    const CLI::App* at = deepest(app);
    std::vector<std::string> extras = at->remaining();
    std::vector<std::string> subs = subcommand_names(*at);
    if (!extras.empty() && !subs.empty() && extras[0].rfind("-", 0) != 0)
      return fail(err, "unknown command '" + extras[0] + "'" + did_you_mean(extras[0], subs) + " (see '" +
                           at->get_display_name(true) + " --help')");
    return fail(err, e.what() + std::string(" (see '") + at->get_display_name(true) + " --help')");
  }
  for (auto& [sub, run] : runs)
    if (sub->parsed()) return run(out, err);
  return fail(err, "no command given (see 'topoplan --help')");
}

}  // namespace

int cli_main(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  return run_guarded([&] { return cli_main_unguarded(argc, argv, out, err); }, argc, argv, err);
}

}  // namespace topoplan::cli

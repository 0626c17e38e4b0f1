// topoplan groups: Megatron-LM's rank groups for given sizes and order (planner/rank_groups.h).
#include <iomanip>
#include <memory>
#include <ostream>
#include <sstream>

#include "cli/count_option.h"
#include "cli/tool.h"
#include "planner/job.h"
#include "planner/rank_groups.h"
#include "base/limits.h"

namespace topoplan::cli {
namespace {

// The lists printed, in this order: the groups initialize_model_parallel builds communicators for.
constexpr const char* kTokens[] = {"tp",        "cp",        "dp",        "pp",        "tp-pp",
                                   "dp-cp",     "expert.ep", "expert.dp", "expert.tp", "expert.tp-ep"};

// Text output shows the head of each list; --json has every group.
constexpr size_t kShownGroups = 4;
constexpr size_t kShownRanks = 8;

struct Options {
  ParallelSizes sizes;
  std::string order{kDefaultOrder};
  std::string job;
  bool json = false;
};

void write_json(std::ostream& out, const RankGroups& g) {
  out << "{";
  const char* sep = "\n";
  for (const char* token : kTokens) {
    out << sep << "  \"" << token << "\": [";
    const char* gsep = "";
    GroupList groups = g.groups(token).value();
    for (const auto& group : groups) {
      out << gsep << "[";
      for (size_t i = 0; i < group.size(); ++i) out << (i ? ", " : "") << group[i];
      out << "]";
      gsep = ", ";
    }
    out << "]";
    sep = ",\n";
  }
  out << "\n}\n";
}

std::string group_text(const std::vector<int>& group) {
  std::ostringstream s;
  s << "[";
  for (size_t i = 0; i < group.size(); ++i) {
    if (i == kShownRanks - 1 && group.size() > kShownRanks) {
      s << " ... " << group.back();
      break;
    }
    s << (i ? " " : "") << group[i];
  }
  s << "]";
  return s.str();
}

std::string grid_text(const RankGrid& grid, std::initializer_list<Axis> axes) {
  std::string s;
  for (Axis a : axes) s += (s.empty() ? "" : ", ") + std::string(axis_name(a)) + " " + std::to_string(grid.size(a));
  return s;
}

void write_text(std::ostream& out, const RankGroups& g) {
  out << "# world " << g.world_size() << ", order " << g.dense().order() << "; dense grid "
      << grid_text(g.dense(), {Axis::tp, Axis::cp, Axis::dp, Axis::pp}) << "; expert grid "
      << grid_text(g.expert(), {Axis::tp, Axis::ep, Axis::dp, Axis::pp}) << "\n";
  out << "# group         count x size  first groups (--json for all)\n";
  for (const char* token : kTokens) {
    GroupList groups = g.groups(token).value();
    out << std::left << std::setw(14) << token << std::right << std::setw(6) << groups.size() << " x "
        << std::left << std::setw(6) << groups[0].size() << std::right;
    for (size_t i = 0; i < groups.size() && i < kShownGroups; ++i) out << " " << group_text(groups[i]);
    if (groups.size() > kShownGroups) out << " ... " << groups.size() - kShownGroups << " more";
    out << "\n";
  }
}

}  // namespace

Tool groups_tool() {
  return {"groups", "Megatron-LM rank groups (tp, cp, dp, pp, ep, ...) for parallel sizes and an order",
          [](CLI::App& sub) -> Run {
            auto o = std::make_shared<Options>();
            // Megatron takes any size; a world above limits::kMaxRanks is refused by RankGroups.
            const int most = static_cast<int>(limits::kMaxRanks);
            add_count_option(sub, "--tp", o->sizes.tp, "tensor-parallel size", 1, most);
            add_count_option(sub, "--cp", o->sizes.cp, "context-parallel size", 1, most);
            add_count_option(sub, "--pp", o->sizes.pp, "pipeline-parallel size", 1, most);
            add_count_option(sub, "--dp", o->sizes.dp, "data-parallel size", 1, most);
            add_count_option(sub, "--ep", o->sizes.ep, "expert-parallel size", 1, most);
            add_count_option(sub, "--expert-tp", o->sizes.expert_tp, "expert tensor-parallel size (0: the tp size)", 0, most);
            CLI::Option* order = sub.add_option("--order", o->order, "axes, fastest-varying first")->capture_default_str();
            CLI::Option* job = sub.add_option("--job", o->job, "take the sizes and order from a job file");
            for (const char* size : {"--tp", "--cp", "--pp", "--dp", "--ep", "--expert-tp"}) job->excludes(sub.get_option(size));
            sub.add_flag("--json", o->json, "every group of every list, as JSON");
            return [o, order](std::ostream& out, std::ostream& err) {
              if (!o->job.empty()) {
                Result<Job> j = job_load(o->job);
                if (!j) return fail(err, j.error());
                o->sizes = job_parallel_sizes(*j);
                if (order->count() == 0) o->order = j->parallel.order;
              }
              Result<RankGroups> groups = RankGroups::make(o->sizes, o->order);
              if (!groups) return fail(err, groups.error());
              if (o->json)
                write_json(out, *groups);
              else
                write_text(out, *groups);
              return kExitOk;
            };
          }};
}

}  // namespace topoplan::cli

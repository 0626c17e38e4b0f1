// topoplan groups: Megatron-LM's rank groups for given sizes and order (planner/rank_groups.h).
#include <memory>
#include <ostream>

#include "base/limits.h"
#include "cli/count_option.h"
#include "cli/tool.h"
#include "planner/job.h"
#include "planner/rank_groups.h"
#include "planner/rank_groups_text.h"

namespace topoplan::cli {
namespace {

struct Options {
  ParallelSizes sizes;
  std::string order{kDefaultOrder};
  std::string job;
  bool json = false;
};

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
            add_count_option(sub, "--expert-tp", o->sizes.expert_tp, "expert tensor-parallel size (0: the tp size)", 0,
                             most);
            CLI::Option* order =
                sub.add_option("--order", o->order, "axes, fastest-varying first")->capture_default_str();
            CLI::Option* job = sub.add_option("--job", o->job, "take the sizes and order from a job file");
            for (const char* size : {"--tp", "--cp", "--pp", "--dp", "--ep", "--expert-tp"})
              job->excludes(sub.get_option(size));
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
              out << (o->json ? rank_groups_json(*groups) : rank_groups_text(*groups));
              return kExitOk;
            };
          }};
}

}  // namespace topoplan::cli

// topoplan slurm: one line in an sbatch script. Reads the allocation from Slurm's environment,
// plans the job on exactly those hosts, writes the plan, the hostfile, each rank's environment and
// the wrapper every task runs, and prints the srun line that starts the ranks where the plan put
// them, or runs it (--exec). planner/slurm_launch.h.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <ostream>

#include "base/file_io.h"
#include "base/shell_words.h"
#include "cli/model_flags.h"
#include "cli/tool.h"
#include "planner/plan.h"
#include "planner/plan_files.h"
#include "planner/plan_text.h"
#include "planner/slurm_launch.h"
#include "topology/load.h"
#include "topology/summary.h"

namespace topoplan::cli {
namespace {

struct Options {
  std::string cluster, job, out_dir;
  ModelSources model;
  std::vector<std::string> command;
  uint64_t seed = 1;
  bool exec = false;
};

int run(const Options& o, std::ostream& out, std::ostream& err) {
  if (o.exec && o.command.empty()) return fail(err, "--exec needs the command every task runs, after --");
  Result<Cluster> c = cluster_load(o.cluster);
  if (!c) return fail(err, c.error());
  Result<SlurmAllocation> alloc = slurm_allocation_read(*c, [](const char* name) { return std::getenv(name); });
  if (!alloc) return fail(err, alloc.error());
  const WorldHint world{gpus_on(*c, alloc->hosts), "the GPUs of the " + std::to_string(alloc->hosts.size()) + " hosts of SLURM_JOB_NODELIST"};
  Result<Job> job = job_load(o.job, [&]() -> Result<WorldHint> { return world; });
  if (!job) return fail(err, job.error());
  if (Result<void> ok = slurm_allocation_check(*c, *alloc, job_ranks(*job)); !ok) return fail(err, ok.error());
  PlanRequest req;
  req.free = alloc->hosts;
  req.seed = o.seed;
  ModelInputs model;
  if (Result<void> ok = model_inputs_load(o.model, *c, model); !ok) return fail(err, ok.error());
  req.score = model.options;
  Router router(*c, req.down);
  Result<Plan> plan = plan_job(*c, router, *job, req);
  if (!plan) return fail(err, o.job + ": " + plan.error());
  if (!plan->score.memory.fits())
    return fail(err, o.job + ": " + memory_over_text(plan->job, plan->score.traffic.compute.gpu, plan->score.memory));

  // The tasks read the files: an absolute folder, on a filesystem every host sees.
  const std::string dir = std::filesystem::absolute(
                              o.out_dir.empty() ? "topoplan-" + (alloc->job_id.empty() ? "plan" : alloc->job_id)
                                                : o.out_dir)
                              .lexically_normal()
                              .string();
  const EmitList files{true, {"slurm-hostfile", "env", "megatron"}};
  Result<PlanFiles> written = plan_files_write(dir, files, *c, router, o.cluster, *plan, req);
  if (!written) return fail(err, written.error());
  const std::string wrapper = dir + "/rank.sh";
  if (Result<void> ok = text_write_file(wrapper, slurm_rank_wrapper(dir + "/ranks.env")); !ok) return fail(err, ok.error());
  if (chmod(wrapper.c_str(), 0755) != 0) return fail(err, wrapper + ": cannot make it executable: " + std::strerror(errno));
  written->written.push_back(wrapper);

  const int ranks = job_ranks(plan->job);
  const std::vector<std::string> command = o.command.empty() ? std::vector<std::string>{"COMMAND"} : o.command;
  const std::vector<std::string> srun = slurm_srun_words(dir, ranks, command);
  const std::string hostfile = dir + "/slurm.hostfile";
  out << plan_text(*c, o.cluster, *plan, written->written);
  for (const std::string& note : written->notes) out << "note: " << note << "\n";
  out << "\nMegatron-LM: the arguments the plan was scored with are in " << dir
      << "/megatron.args (pretrain_gpt.py $(grep -v '^#' " << shell_word(dir + "/megatron.args") << "))\n";
  out << "launch:\n  SLURM_HOSTFILE=" << shell_word(hostfile) << " " << shell_line(srun) << "\n";
  if (!o.exec) return kExitOk;
  out << std::flush;
  if (setenv("SLURM_HOSTFILE", hostfile.c_str(), 1) != 0) return fail(err, "cannot set SLURM_HOSTFILE");
  std::vector<char*> argv;
  for (const std::string& w : srun) argv.push_back(const_cast<char*>(w.c_str()));
  argv.push_back(nullptr);
  execvp("srun", argv.data());
  return fail(err, std::string("cannot run srun: ") + std::strerror(errno));
}

Run setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--cluster", o->cluster,
                 "the site's cluster: a cluster file, a preset spec, or Slurm's topology.conf@NODE_TYPE")
      ->required();
  app.add_option("--job", o->job, kJobHelp)->required();
  app.add_option("-o,--output", o->out_dir,
                 "folder for plan.json, slurm.hostfile, ranks.env, megatron.args and rank.sh, on a filesystem every "
                 "host sees (default topoplan-$SLURM_JOB_ID)");
  app.add_option("--seed", o->seed, "seed of the local search (the same seed gives the same plan)");
  model_flags_add(app, o->model);
  app.add_flag("--exec", o->exec, "run the srun line instead of printing it (needs the command)");
  app.add_option("command", o->command, "what every task runs, after -- (e.g. -- python pretrain_gpt.py ...)");
  return [o](std::ostream& out, std::ostream& err) { return run(*o, out, err); };
}

}  // namespace

Tool slurm_tool() {
  return {"slurm",
          "inside an sbatch script: plan on the allocation's hosts, write the files, print or run the srun line",
          setup};
}

}  // namespace topoplan::cli

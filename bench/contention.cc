// Times `contention` at a shared cluster's scale (issue 35): 100 running jobs of 160 GPUs
// (llama3-70b at TP8 PP4 DP5) on data/clusters/threetier-h100.json (16,384 GPUs), each on 20 hosts
// drawn from a fixed pseudo-random order of the cluster's hosts, as a busy scheduler leaves them
// fragmented, so many jobs meet on the spines and cores.
// Then plan --running's target: a 1,024-GPU llama3-70b planned beside the first 20 of those jobs,
// against plan alone on the same free hosts.
// Usage: bench_contention [JOBS=100]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "bench/bench.h"
#include "planner/contention.h"
#include "planner/plan_running.h"
#include "topology/load.h"

using namespace topoplan;
using bench::now_s;
using bench::or_die;

namespace {

const std::string kSource = TOPOPLAN_SOURCE_DIR;

}  // namespace

int main(int argc, char** argv) {
  const int count = argc > 1 ? std::atoi(argv[1]) : 100;
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  double t0 = now_s();
  const Cluster c = or_die(cluster_load(kSource + "/data/clusters/threetier-h100.json"));
  const Router r(c);
  std::printf("contention, one core: threetier-h100 (%zu GPUs) read in %.2f s\n", c.gpus().size(), now_s() - t0);
  Job job = or_die(job_load(kSource + "/data/jobs/llama3-70b.json"));
  job.parallel.dp = 5;
  job.training.global_batch = 160;
  const int hosts_each = job_ranks(job) / static_cast<int>(c.hosts().front().gpus.size());
  std::vector<int> order(c.hosts().size());
  for (size_t h = 0; h < order.size(); ++h) order[h] = static_cast<int>(h);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(7));
  if (count * hosts_each > static_cast<int>(order.size()))
    return std::fprintf(stderr, "%d jobs of %d hosts do not fit\n", count, hosts_each), 1;
  std::vector<RunningJob> jobs;
  for (int j = 0; j < count; ++j) {
    std::string text;
    for (int k = 0; k < hosts_each; ++k)
      text += c.hosts()[static_cast<size_t>(order[static_cast<size_t>(j * hosts_each + k)])].name + " slots=8\n";
    const std::string name = "job" + std::to_string(j);
    jobs.push_back({name, name, job, or_die(layout_parse(text, name, c, job_ranks(job)))});
  }
  t0 = now_s();
  const Contention k = or_die(contention_compute(c, r, jobs, {}));
  const double t = now_s() - t0;
  double worst = 1, mean = 0;
  for (const ContentionJob& j : k.jobs) {
    worst = std::max(worst, j.beside[static_cast<size_t>(Alignment::worst)].slowdown);
    mean += j.beside[static_cast<size_t>(Alignment::average)].slowdown / static_cast<double>(k.jobs.size());
  }
  std::printf(
      "  %d jobs of %d GPUs: %.2f s, %zu links loaded, %zu where jobs meet; slowdown %.3f on average "
      "(average alignment), up to %.3f (worst); peak RSS %.0f MiB\n",
      count, job_ranks(job), t, k.links.size(), k.meeting, mean, worst, bench::peak_rss_mib());

  RunningJobs first;
  first.source = "bench";
  first.jobs.assign(jobs.begin(), jobs.begin() + std::min<size_t>(20, jobs.size()));
  Job big = or_die(job_load(kSource + "/data/jobs/llama3-70b.json"));
  big.parallel.dp = 32;
  big.training.global_batch = 512;
  PlanRequest req;
  for (size_t h = 0; h < c.hosts().size(); ++h) {
    bool busy = false;
    for (const RunningJob& j : first.jobs)
      for (VertexId g : j.layout.gpu_of_rank) busy = busy || c.device(g).host == static_cast<int>(h);
    if (!busy) req.free.push_back(static_cast<int>(h));
  }
  t0 = now_s();
  const Plan alone = or_die(plan_job(c, r, big, req));
  const double t_plan = now_s() - t0;
  t0 = now_s();
  const RunningPlan beside = or_die(plan_beside_running(c, r, big, req, {&first, 1, Alignment::average}));
  const double t_running = now_s() - t0;
  std::printf(
      "  plan of %d GPUs: %.2f s alone, %.2f s beside %zu running jobs (%.1fx); step %.3f s, beside them %.3f s\n",
      job_ranks(big), t_plan, t_running, first.jobs.size(), t_running / t_plan, alone.score.step_s,
      beside.plan.score.step_s);
  return 0;
}

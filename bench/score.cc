// Times `score`: a whole job's traffic routed and timed group by group, with contention. Default:
// llama3-405b (TP8 PP16 DP128, 16,384 GPUs) on the three-tier cluster of data/clusters, then the
// same model at DP 781 (99,968 GPUs) on a three-tier cluster of 12,496 DGX H100.
// Usage: bench_score [LARGE_DP=781] [ROUTING=adaptive|hash|static, default the cluster file's]
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "base/json_fields.h"
#include "bench/bench.h"
#include "planner/score.h"
#include "topology/formats/json.h"
#include "topology/load.h"

using namespace topoplan;
using bench::now_s;

namespace {

int run(const Cluster& c, Job job, double t_cluster) {
  const double t0 = now_s();
  Router router(c);
  Result<Layout> layout = layout_default(c, job_ranks(job));
  if (!layout) return std::fprintf(stderr, "%s\n", layout.error().c_str()), 1;
  Result<JobScore> s = score_job(c, router, job, *layout);
  if (!s) return std::fprintf(stderr, "%s\n", s.error().c_str()), 1;
  const double t1 = now_s();
  std::printf(
      "%s %d GPUs (tp %d pp %d dp %d): cluster %.2f s, score %.3f s, exposed %.3f s of a %.2f s step, "
      "%zu items, %zu loaded links, peak RSS %.0f MiB\n",
      job.name.c_str(), job_ranks(job), job.parallel.tp, job.parallel.pp, job.parallel.dp, t_cluster, t1 - t0,
      s->exposed_comm_s, s->step_s, s->items.size(), s->links.size(), bench::peak_rss_mib());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int large_dp = argc > 1 ? std::atoi(argv[1]) : 781;
  std::optional<Routing> routing;
  if (argc > 2 && !(routing = routing_from(argv[2]))) return std::fprintf(stderr, "unknown routing '%s'\n", argv[2]), 2;
  const std::string src = TOPOPLAN_SOURCE_DIR;
  Result<Job> job = job_load(src + "/data/jobs/llama3-405b.json");
  if (!job) return std::fprintf(stderr, "%s\n", job.error().c_str()), 1;

  double t0 = now_s();
  Result<Cluster> c = cluster_load(src + "/data/clusters/threetier-h100.json");
  if (!c) return std::fprintf(stderr, "%s\n", c.error().c_str()), 1;
  if (routing) c->routing = {*routing, "bench_score's argument"};
  std::printf("routing: %s\n", routing_text(c->routing).c_str());
  int rc = run(*c, *job, now_s() - t0);

  Job big = *job;
  big.parallel.dp = large_dp;
  big.training.global_batch = 16 * large_dp;  // 16 micro-batches per pipeline, as the 16K job
  Result<nlohmann::json> doc = json_read_file(src + "/data/clusters/threetier-h100.json");
  if (!doc) return std::fprintf(stderr, "%s\n", doc.error().c_str()), 1;
  Result<ClusterSpec> spec = recipe_from_json(*doc, "threetier-h100.json");
  if (!spec) return std::fprintf(stderr, "%s\n", spec.error().c_str()), 1;
  spec->nodes = (job_ranks(big) + 7) / 8;
  spec->nodes = (spec->nodes + 127) / 128 * 128;  // whole pods
  if (routing) spec->fabric.routing = {*routing, "bench_score's argument"};
  t0 = now_s();
  Result<Cluster> huge = cluster_build(*spec);
  if (!huge) return std::fprintf(stderr, "%s\n", huge.error().c_str()), 1;
  rc |= run(*huge, big, now_s() - t0);
  return rc;
}

#include "planner/alternatives.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "planner/compute.h"
#include "planner/gpu_compute.h"
#include "planner/host_choice.h"
#include "topology/locality.h"

namespace topoplan {
namespace {

using nlohmann::json;

// Layouts scored with their communication per layout shown.
constexpr size_t kScoredPerShown = 3;

std::vector<int> divisors(int n) {
  std::vector<int> out;
  for (int d = 1; d <= n; ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

// The job with other sizes, checked as a job file is: nullopt when the model or the batch does not
// allow them. Uneven end stages and virtual stages carry over where they still divide, else the
// even split; sequence parallelism follows tp (Megatron refuses it at tp 1, and needs it for MoE
// with ep and tp); expert_tp follows tp unless the job set its own.
std::optional<Job> resized(const Job& job, int tp, int pp, int cp, int ep, int dp) {
  const Parallelism& p = job.parallel;
  json doc = job_to_json(job);
  json& par = doc["parallel"];
  par["tp"] = tp;
  par["pp"] = pp;
  par["cp"] = cp;
  par["ep"] = ep;
  par["dp"] = dp;
  par["expert_tp"] = p.expert_tp == p.tp ? tp : std::min(p.expert_tp, tp);
  par["sequence_parallel"] = tp > 1 && (p.sequence_parallel || (job.model.is_moe() && ep > 1));
  if (pp != p.pp) {
    par["first_stage_layers"] = 0;
    par["last_stage_layers"] = 0;
  }
  for (int v : {p.virtual_pipeline_stages, 1}) {
    par["virtual_pipeline_stages"] = pp > 1 ? v : 1;
    if (Result<Job> j = job_from_json(doc, job.name)) return std::move(*j);
  }
  return std::nullopt;
}

// The `n` with the shortest step, fastest first; the job's own sizes stay among them, last if
// they would not, for comparison.
void fastest(std::vector<Alternative>& list, size_t n) {
  std::stable_sort(list.begin(), list.end(), [](const Alternative& a, const Alternative& b) { return a.step_s < b.step_s; });
  if (list.size() <= n) return;
  const auto cut = list.begin() + static_cast<std::ptrdiff_t>(n);
  if (auto own = std::find_if(cut, list.end(), [](const Alternative& a) { return a.is_job; }); own != list.end())
    std::iter_swap(cut - 1, own);
  list.resize(n);
}

}  // namespace

Result<Alternatives> job_alternatives(const Cluster& c, const Router& router, const Job& job,
                                      const AlternativesRequest& req) {
  const Locality& loc = locality_of(c);
  const std::vector<int> offered = hosts_offered(c, req.free);
  Alternatives out;
  for (int h : offered) out.gpus_available += static_cast<int>(req.down.gpus_up(c, h).size());
  if (out.gpus_available == 0) return Error{"the offered hosts have no GPU up"};
  const std::string gpu_model = c.device(c.gpus().front()).model;
  // The GPU's figures depend on the model, the dtype and the job's overrides, not on the sizes.
  Result<GpuCompute> gpu = gpu_compute(gpu_model, job);
  RETURN_IF_ERROR(gpu);

  // TP stays in an NVLink domain; CP at most doubles the job's (a job without it rarely wants
  // more than two), in powers of two.
  const int domain = largest_domain_gpus(c);
  const ModelShape& m = job.model;
  const std::vector<int> batch_dps = divisors(job.training.global_batch / job.training.micro_batch);
  // Even splits of the layers, and the job's own pp, which uneven end stages may make legal.
  std::vector<int> pipeline_sizes = divisors(m.layers);
  if (m.layers % job.parallel.pp != 0) pipeline_sizes.push_back(job.parallel.pp);
  std::vector<Alternative> scored;
  for (int tp : divisors(m.kv_heads)) {
    if (tp > domain) break;
    for (int pp : pipeline_sizes)
      for (int cp = 1; cp <= std::max(2, 2 * job.parallel.cp); cp *= 2)
        for (int ep : m.is_moe() ? divisors(m.moe.experts) : std::vector<int>{1}) {
          const int model_gpus = tp * pp * cp;
          if (model_gpus > out.gpus_available) continue;
          // The largest dp the GPUs hold that the batch (dp divides it over the micro-batch) and the
          // experts allow.
          std::optional<Job> best;
          for (auto dp = batch_dps.rbegin(); dp != batch_dps.rend() && !best; ++dp)
            if (*dp * model_gpus <= out.gpus_available) best = resized(job, tp, pp, cp, ep, *dp);
          if (!best) continue;
          ++out.legal;
          const MemoryEstimate memory = memory_estimate(*best, *gpu);
          if (!memory.fits()) {
            ++out.over_memory;
            continue;
          }
          Result<ComputeEstimate> compute = compute_estimate(*best, gpu_model, *req.score.calibration);
          RETURN_IF_ERROR(compute);
          Alternative a;
          a.job = std::move(*best);
          a.memory_peak_bytes = memory.peak().total_bytes();
          a.step_s = compute->step_us / 1e6;  // compute alone, until scored
          const Parallelism &p = a.job.parallel, &q = job.parallel;
          a.is_job = p.tp == q.tp && p.pp == q.pp && p.cp == q.cp && p.ep == q.ep && p.dp == q.dp &&
                     p.virtual_pipeline_stages == q.virtual_pipeline_stages;
          scored.push_back(std::move(a));
        }
  }
  if (scored.empty())
    return Error{"no layout of " + job.name + " fits " + std::to_string(out.gpus_available) + " GPUs: " +
                 std::to_string(out.legal) + " legal for the model, " + std::to_string(out.over_memory) +
                 " of them over GPU memory"};

  // The fastest by compute (which has the pipeline bubble) scored with their communication, each on
  // the hosts the planner would take, ranks host-major in the job's order: a score is costly on
  // large clusters, and communication seldom turns a layout twice as slow to compute into the best.
  fastest(scored, kScoredPerShown * req.limit);
  for (Alternative& a : scored) {
    const int ranks = job_ranks(a.job);
    Result<HostChoice> hosts = hosts_choose(c, loc, req.down, offered, ranks);
    RETURN_IF_ERROR(hosts);
    Layout layout;
    layout.source = "host-major on the chosen hosts";
    for (int h : hosts->hosts)
      for (VertexId g : req.down.gpus_up(c, h))
        if (static_cast<int>(layout.gpu_of_rank.size()) < ranks) layout.gpu_of_rank.push_back(g);
    a.hosts = hosts->hosts;
    Result<JobScore> s = score_job(c, router, a.job, layout, req.score);
    RETURN_IF_ERROR(s);
    a.step_s = s->step_s;
    a.exposed_s = s->exposed_comm_s;
    a.mfu = s->mfu;
  }
  fastest(scored, req.limit);
  out.ranked = std::move(scored);
  return out;
}

}  // namespace topoplan

// The planner's quality and speed (issue 9):
//  a  fragmented allocations on data/clusters/threetier-h100.json (a few hosts from each of
//     several pods, listed pod-interleaved, shared fabric): planned exposed communication against
//     the input order, for dense jobs with and without overlap and an MoE job with EP across hosts,
//     over seeds;
//  b  optimality on cases small enough to enumerate (8 hosts on a small three-tier fabric: every
//     order string and every host order up to hosts that are interchangeable), over seeds, with
//     how often the construction alone reaches the optimum; harder cases on uneven allocations,
//     degraded links and beside running jobs;
//  c  planning time on one core at 1,024 and 16,384 GPUs (and 99,968 with --100k);
//  d  determinism: the same inputs and seed give byte-identical plan files.
// Usage: bench_plan [a] [b] [c] [d] [--100k]   (no letter: all four)
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "base/json_fields.h"
#include "bench/bench.h"
#include "planner/orders.h"
#include "planner/plan.h"
#include "planner/plan_json.h"
#include "planner/plan_running.h"
#include "topology/degraded.h"
#include "topology/fabric.h"
#include "topology/formats/json.h"
#include "topology/load.h"

using namespace topoplan;
using bench::now_s;

namespace {

const std::string kSource = TOPOPLAN_SOURCE_DIR;

Job load_job(const std::string& name) {
  Result<Job> j = job_load(kSource + "/data/jobs/" + name + ".json");
  if (!j) std::fprintf(stderr, "%s\n", j.error().c_str()), std::exit(1);
  return *j;
}

Cluster load(const std::string& spec) {
  Result<Cluster> c = cluster_load(spec);
  if (!c) std::fprintf(stderr, "%s\n", c.error().c_str()), std::exit(1);
  return std::move(*c);
}

Plan plan_or_die(const Cluster& c, const Router& r, const Job& job, const PlanRequest& req) {
  Result<Plan> p = plan_job(c, r, job, req);
  if (!p) std::fprintf(stderr, "%s: %s\n", job.name.c_str(), p.error().c_str()), std::exit(1);
  return std::move(*p);
}

// An MoE job whose expert groups span hosts: 64 experts, EP 16 over two DGX hosts.
Job moe_across_hosts() {
  Job j = load_job("mixtral-8x7b");
  j.name = "moe-64e-ep16";
  j.model.moe.experts = 64;
  j.parallel.ep = 16;
  j.parallel.pp = 2;
  j.parallel.dp = 32;
  return j;
}

void fragmented() {
  std::printf(
      "# a: fragmented allocations on threetier-h100 (pods of 128 hosts, 7:1 above), hosts listed pod-interleaved\n");
  std::printf(
      "# ratio: input / plan; above the bound: (input - bound) / (plan - bound), what the plan removed of\n"
      "# what any placement could remove\n");
  std::printf("# %-24s %-10s %5s %12s %12s %12s %7s %12s %10s\n", "job", "hosts", "seed", "input", "plan",
              "lower bound", "ratio", "above bound", "time");
  Cluster c = load(kSource + "/data/clusters/threetier-h100.json");
  Router r(c);
  Job no_overlap = load_job("llama3-70b");
  no_overlap.name = "llama3-70b-no-overlap";
  no_overlap.parallel.overlap_grad_reduce = no_overlap.parallel.overlap_param_gather = false;
  no_overlap.parallel.virtual_pipeline_stages = 1;
  struct Case {
    Job job;
    int pods, per_pod;
  };
  const std::vector<Case> cases = {{load_job("llama3-70b"), 4, 4},
                                   {no_overlap, 4, 4},
                                   {no_overlap, 8, 2},
                                   {moe_across_hosts(), 4, 2},
                                   {load_job("mixtral-8x7b"), 8, 1}};
  for (const Case& k : cases) {
    // A few hosts from every other pod, taken from the middle of each pod, interleaved.
    std::vector<int> hosts;
    for (int i = 0; i < k.per_pod; ++i)
      for (int p = 0; p < k.pods; ++p) hosts.push_back(128 * (2 * p + 1) + 40 + 9 * i);
    for (uint64_t seed : {1, 2, 3}) {
      PlanRequest req;
      req.free = hosts;
      req.seed = seed;
      const double t0 = now_s();
      Plan p = plan_or_die(c, r, k.job, req);
      const double in = p.baselines.front().exposed_s, out = p.score.exposed_comm_s, lb = p.lower_bound_s.value_or(0);
      std::printf("  %-24s %2dx%-7d %5llu %10.3f s %10.3f s %10.3f s %6.2fx %11.1fx %8.2f s\n", k.job.name.c_str(),
                  k.pods, k.per_pod, static_cast<unsigned long long>(seed), in, out, lb, out > 0 ? in / out : 0,
                  out - lb > 1e-9 ? (in - lb) / (out - lb) : 0, now_s() - t0);
    }
  }
}

// Every order string and every host order up to interchangeable hosts, scored in full. `distinct`:
// hosts that are not interchangeable with the rest of their leaf group (a degraded NIC).
double enumerate_best(const Cluster& c, const Router& r, const Job& job, const std::vector<int>& hosts,
                      const ScoreOptions& opt, int* layouts, const std::vector<int>& distinct = {}) {
  const Locality& loc = locality_of(c);
  // Hosts of one leaf group with single-host domains are interchangeable: permute their labels.
  std::vector<int> labels;
  std::map<int, std::vector<int>> by_label;
  for (int h : hosts) {
    const bool own = std::find(distinct.begin(), distinct.end(), h) != distinct.end();
    labels.push_back(own ? 1000 + h : loc.leaf_group[static_cast<size_t>(h)]);
    by_label[labels.back()].push_back(h);
  }
  std::sort(labels.begin(), labels.end());
  Result<ComputeEstimate> ce = compute_estimate(job, c.device(c.gpus().front()).model);
  Result<StepTraffic> traffic = step_traffic(job, *ce);
  std::vector<std::string> tokens;
  for (const TrafficItem& it : traffic->items) tokens.push_back(it.group);
  const std::vector<std::string> orders = *orders_distinct(job, tokens);
  double best = 1e300;
  *layouts = 0;
  do {
    std::map<int, size_t> next;
    std::vector<VertexId> gpus;
    for (int l : labels)
      for (VertexId g : c.hosts()[static_cast<size_t>(by_label[l][next[l]++])].gpus) gpus.push_back(g);
    gpus.resize(static_cast<size_t>(job_ranks(job)));
    Layout layout{gpus, "enumerated", "", {}};
    for (const std::string& o : orders) {
      Job j = job;
      j.parallel.order = o;
      Result<std::unique_ptr<ScoreState>> s = ScoreState::make(c, r, j, layout, opt);
      if (!s) std::fprintf(stderr, "%s\n", s.error().c_str()), std::exit(1);
      best = std::min(best, (*s)->exposed_us() / 1e6);
      ++*layouts;
    }
  } while (std::next_permutation(labels.begin(), labels.end()));
  return best;
}

// One optimality case: the optimum by enumeration, then the plan over 10 seeds: how often it and
// its construction alone (the best order string placed in topology order, before local search)
// reach the optimum, and the worst gap. Adds to the totals.
struct Totals {
  int optimal = 0, construction = 0, runs = 0;
  double worst_gap = 0, worst_construction_gap = 0;
};
void optimality_case(const Cluster& c, const Router& r, const Job& job, const std::vector<int>& hosts,
                     const std::string& name, const std::vector<int>& distinct, Totals& t,
                     const ScoreOptions& opt = {}) {
  int layouts = 0;
  const double t0 = now_s();
  const double best = enumerate_best(c, r, job, hosts, opt, &layouts, distinct);
  const double t_enum = now_s() - t0;
  int hit = 0, start_hit = 0;
  double gap = 0, start_gap = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    PlanRequest req;
    req.free = hosts;
    req.seed = seed;
    req.keep = {};
    req.score = opt;
    Plan p = plan_or_die(c, r, job, req);
    const double g = best > 0 ? p.score.exposed_comm_s / best - 1 : 0;
    const double sg = best > 0 ? p.candidates.front().exposed_s / best - 1 : 0;
    gap = std::max(gap, g);
    start_gap = std::max(start_gap, sg);
    hit += g <= 1e-6;
    start_hit += sg <= 1e-6;
  }
  t.optimal += hit;
  t.construction += start_hit;
  t.runs += 10;
  t.worst_gap = std::max(t.worst_gap, gap);
  t.worst_construction_gap = std::max(t.worst_construction_gap, start_gap);
  std::printf(
      "  %-30s optimum %.4f s over %d layouts (%.1f s); plan optimal on %d of 10 seeds, worst gap %.3f%%; "
      "construction alone %d of 10, worst gap %.3f%%\n",
      name.c_str(), best, layouts, t_enum, hit, 100 * gap, start_hit, 100 * start_gap);
}

void optimality() {
  std::printf("\n# b: optimality on 8 hosts (small three-tier: 2 hosts per leaf group, pods of 4 hosts, 4:1 above)\n");
  Cluster c = load(kSource + "/data/clusters/pods-16-h100.json");
  Router r(c);
  auto job_of = [](const char* name, int tp, int pp, int dp, bool overlap) {
    Job j = load_job("llama3-70b");
    j.name = name;
    j.model.layers = 16;
    j.parallel.tp = j.parallel.expert_tp = tp;
    j.parallel.pp = pp;
    j.parallel.dp = dp;
    j.parallel.virtual_pipeline_stages = 1;
    j.parallel.overlap_grad_reduce = j.parallel.overlap_param_gather = overlap;
    j.training.global_batch = 8 * dp;
    return j;
  };
  struct Case {
    Job job;
    std::vector<int> hosts;
  };
  const std::vector<Case> cases = {
      {job_of("tp8-pp2-dp4", 8, 2, 4, false), {0, 4, 1, 8, 5, 12, 9, 2}},
      {job_of("tp4-pp4-dp4", 4, 4, 4, false), {0, 6, 12, 2, 8, 14, 4, 10}},
      {job_of("tp8-pp4-dp2-overlap", 8, 4, 2, true), {0, 1, 4, 5, 8, 12, 9, 13}},
      {job_of("tp2-pp2-dp16", 2, 2, 16, false), {3, 7, 11, 15, 2, 6, 10, 14}},
      {moe_across_hosts(), {0, 4, 8, 12, 1, 5, 9, 13}},
  };
  Totals t;
  for (const Case& k : cases) optimality_case(c, r, k.job, k.hosts, k.job.name, {}, t);

  // Harder: an uneven allocation, 3 + 2 + 2 + 1 hosts over four leaf groups of two pods (leaf
  // groups of 4 hosts, pods of 8, 4:1 above); MoE with EP across hosts on those hosts; and on
  // them with one NIC at 10 Gbit/s (of a host among three, and of the lone host) or a leaf uplink
  // at 10 Gbit/s, where the construction, blind to the slow link's place, can miss: with TP 4 or
  // 2, which ranks of a host use the slow NIC depends on the placement.
  std::printf("  harder: leaf groups of 4 hosts, pods of 8, 4:1 above\n");
  Result<Cluster> built = cluster_from_document(
      nlohmann::json::parse(R"({"name": "uneven-16", "node": "dgx-h100", "nodes": 16,
        "fabric": {"kind": "rail", "nodes_per_su": 4, "nodes_per_pod": 8, "pod_oversubscription": 4}})"),
      "uneven-16");
  if (!built) std::fprintf(stderr, "%s\n", built.error().c_str()), std::exit(1);
  const Cluster& u = *built;
  const Router ru(u);
  const std::vector<int> uneven = {0, 1, 2, 4, 5, 8, 9, 12};
  optimality_case(u, ru, job_of("tp8-pp2-dp4", 8, 2, 4, false), uneven, "tp8-pp2-dp4 3+2+2+1", {}, t);
  optimality_case(u, ru, job_of("tp4-pp4-dp4", 4, 4, 4, false), uneven, "tp4-pp4-dp4 3+2+2+1", {}, t);
  optimality_case(u, ru, moe_across_hosts(), uneven, "moe-ep16 3+2+2+1", {}, t);
  for (const char* slow : {"h002/nic0=10Gbps", "h013/nic0=10Gbps", "leaf1<->spine0=10Gbps"}) {
    Result<Degraded> d = cluster_degraded(u, {slow});
    if (!d) std::fprintf(stderr, "%s\n", d.error().c_str()), std::exit(1);
    const Router rd(d->cluster);
    for (const Job& job : {job_of("tp8-pp2-dp4", 8, 2, 4, false), job_of("tp4-pp4-dp4", 4, 4, 4, false),
                           job_of("tp2-pp2-dp16", 2, 2, 16, false), moe_across_hosts()})
      optimality_case(d->cluster, rd, job, uneven, job.name + " 3+2+2+1, " + slow, d->hosts, t);
  }
  // Beside running jobs (plan --running): the job planned on the background plan_beside_running
  // builds from them, both the enumeration and the plan scored on it. On the other hosts: a
  // data-parallel job across the pods (h004 and h014: the uplinks of the first and last leaf
  // groups), another from the second leaf group to the third (h007, h011) and a pipeline within
  // the last (h015, h016).
  RunningJobs running;
  running.source = "bench";
  auto run_on = [&](const char* name, const Job& job, std::vector<int> on) {
    std::vector<VertexId> gpus;
    for (int h : on) gpus.insert(gpus.end(), u.hosts()[static_cast<size_t>(h)].gpus.begin(),
                                 u.hosts()[static_cast<size_t>(h)].gpus.end());
    running.jobs.push_back({name, name, job, Layout{gpus, "running", "", {}}});
  };
  run_on("dp-across-pods", job_of("tp8-dp2", 8, 1, 2, false), {3, 13});
  run_on("dp-across-pods-2", job_of("tp8-dp2", 8, 1, 2, false), {6, 10});
  run_on("pp-in-leaf", job_of("tp8-pp2", 8, 2, 1, false), {14, 15});
  Result<std::vector<JobDemand>> demands = job_demands(u, ru, running.jobs, {});
  if (!demands) std::fprintf(stderr, "%s\n", demands.error().c_str()), std::exit(1);
  Result<Background> bg = running_background(u, ru, running, *demands, {}, Alignment::average);
  if (!bg) std::fprintf(stderr, "%s\n", bg.error().c_str()), std::exit(1);
  ScoreOptions beside;
  beside.fabric = FabricMode::idle;
  beside.background = &*bg;
  optimality_case(u, ru, job_of("tp8-pp2-dp4", 8, 2, 4, false), uneven, "tp8-pp2-dp4 3+2+2+1, running", {}, t,
                  beside);
  optimality_case(u, ru, moe_across_hosts(), uneven, "moe-64e-ep16 3+2+2+1, running", {}, t, beside);
  std::printf("  optimal on %d of %d runs (%.0f%%), worst gap %.2f%%; construction alone on %d (%.0f%%), worst gap "
              "%.2f%%\n",
              t.optimal, t.runs, 100.0 * t.optimal / t.runs, 100 * t.worst_gap, t.construction,
              100.0 * t.construction / t.runs, 100 * t.worst_construction_gap);
}

void timing(bool huge) {
  std::printf("\n# c: planning time, one core (the planner picks the hosts where more are free)\n");
  Cluster c = load(kSource + "/data/clusters/threetier-h100.json");
  Router r(c);
  Job small = load_job("llama3-70b");
  small.parallel.dp = 32;
  small.training.global_batch = 512;
  for (const Job& job : {small, load_job("llama3-405b")}) {
    const double t0 = now_s();
    Plan p = plan_or_die(c, r, job, {});
    std::printf("  %-12s %6d GPUs: %6.2f s, %lld moves, exposed %.3f s (input order %.3f s), peak RSS %.0f MiB\n",
                job.name.c_str(), job_ranks(job), now_s() - t0, static_cast<long long>(p.stats.moves),
                p.score.exposed_comm_s, p.baselines.front().exposed_s, bench::peak_rss_mib());
  }
  if (!huge) return;
  Job big = load_job("llama3-405b");
  big.parallel.dp = 781;
  big.training.global_batch = 16 * 781;
  Result<nlohmann::json> doc = json_read_file(kSource + "/data/clusters/threetier-h100.json");
  Result<ClusterSpec> spec = recipe_from_json(*doc, "threetier-h100.json");
  spec->nodes = (job_ranks(big) + 7) / 8;
  spec->nodes = (spec->nodes + 127) / 128 * 128;
  double t0 = now_s();
  Cluster huge_c = std::move(*cluster_build(*spec));
  Router hr(huge_c);
  const double t_build = now_s() - t0;
  t0 = now_s();
  Plan p = plan_or_die(huge_c, hr, big, {});
  std::printf(
      "  %-12s %6d GPUs: %6.2f s (cluster %.2f s), %lld moves, exposed %.3f s (input %.3f s), peak RSS %.0f MiB\n",
      big.name.c_str(), job_ranks(big), now_s() - t0, t_build, static_cast<long long>(p.stats.moves),
      p.score.exposed_comm_s, p.baselines.front().exposed_s, bench::peak_rss_mib());
}

void determinism() {
  std::printf("\n# d: determinism\n");
  Cluster c = load(kSource + "/data/clusters/threetier-h100.json");
  Router r(c);
  Job job = load_job("llama3-70b");
  PlanRequest req;
  for (int i = 0; i < 4; ++i)
    for (int p = 0; p < 4; ++p) req.free.push_back(128 * (2 * p + 1) + 7 * i);
  std::set<std::string> outputs;
  for (int run = 0; run < 3; ++run) {
    Plan p = plan_or_die(c, r, job, req);
    outputs.insert(plan_to_json(c, r, "threetier-h100", p, req).dump());
  }
  std::printf("  3 runs, seed 1: %zu distinct plan file%s\n", outputs.size(), outputs.size() == 1 ? "" : "s");
}

}  // namespace

int main(int argc, char** argv) {
  std::set<std::string> parts;
  bool huge = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--100k") == 0)
      huge = true;
    else
      parts.insert(argv[i]);
  }
  auto want = [&](const char* p) { return parts.empty() || parts.count(p); };
  if (want("a")) fragmented();
  if (want("b")) optimality();
  if (want("c")) timing(huge);
  if (want("d")) determinism();
  return 0;
}

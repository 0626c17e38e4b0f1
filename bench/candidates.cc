// advise --candidates at a scheduler's scale (issue 33): candidate allocations that share most
// hosts, ranked by the planner's step on each. On data/clusters/threetier-h100.json with a quarter
// of the hosts busy (a fixed pseudo-random set), the base allocation is the first free hosts in
// topology order that hold the job; each candidate swaps 1 to 4 of them for other free hosts:
//   near  the swapped-in hosts come from the same leaf groups as those swapped out (candidates a
//         scheduler draws from the same switches: one allocation pattern, planned once);
//   far   from anywhere free (each candidate its own pattern, planned).
// Each with the planner's local search (what plan gives) and with --quick (its construction).
// Usage: bench_candidates [N_1024=1000] [N_16384=100] [N_FAR=20]
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>

#include "base/json_fields.h"
#include "bench/bench.h"
#include "planner/candidates.h"
#include "topology/fabric.h"
#include "topology/formats/json.h"
#include "topology/load.h"

using namespace topoplan;
using bench::now_s;
using bench::or_die;

namespace {

const std::string kSource = TOPOPLAN_SOURCE_DIR;

std::vector<CandidateAllocation> candidates(const Cluster& c, int hosts_needed, int count, bool near, uint64_t seed) {
  const Locality& loc = locality_of(c);
  std::mt19937_64 rng(seed);
  std::vector<int> free;
  for (int h = 0; h < static_cast<int>(c.hosts().size()); ++h)
    if (rng() % 4 != 0) free.push_back(h);
  hosts_sort(loc, free);
  const std::vector<int> base(free.begin(), free.begin() + hosts_needed);
  const std::vector<int> spare(free.begin() + hosts_needed, free.end());
  std::map<int, std::vector<int>> spare_in_group;
  for (int h : spare) spare_in_group[loc.leaf_group[static_cast<size_t>(h)]].push_back(h);
  std::vector<CandidateAllocation> out;
  for (int k = 0; k < count; ++k) {
    CandidateAllocation a;
    a.id = std::to_string(k);
    a.hosts = base;
    const int swaps = 1 + static_cast<int>(rng() % 4);
    std::vector<int> used;
    for (int s = 0; s < swaps; ++s) {
      const size_t at = rng() % a.hosts.size();
      const std::vector<int>& pool = near ? spare_in_group[loc.leaf_group[static_cast<size_t>(a.hosts[at])]] : spare;
      if (pool.empty()) continue;
      const int in = pool[rng() % pool.size()];
      if (std::find(a.hosts.begin(), a.hosts.end(), in) != a.hosts.end()) continue;
      a.hosts[at] = in;
    }
    out.push_back(std::move(a));
  }
  return out;
}

CandidateRanking run(const Cluster& c, const Router& r, const Job& job, int count, bool near, bool search) {
  if (count <= 0) return {};
  const int hosts = job_ranks(job) / static_cast<int>(c.hosts().front().gpus.size());
  const std::vector<CandidateAllocation> cands = candidates(c, hosts, count, near, 7);
  const double t0 = now_s();
  PlanRequest req;
  req.search = search;
  CandidateRanking k = or_die(candidates_rank(c, r, job, cands, req));
  const double t = now_s() - t0;
  const CandidateResult& best = k.results[k.ranked.front()];
  const CandidateResult& worst = k.results[k.ranked.back()];
  std::printf("  %-12s %6d GPUs, %4d candidates (%s%s): %7.2f s, %d plans (%.3f s each), step %.3f-%.3f s, "
              "peak RSS %.0f MiB\n",
              job.name.c_str(), job_ranks(job), count, near ? "near" : "far", search ? "" : ", --quick", t, k.planned,
              t / std::max(1, k.planned), best.step_s, worst.step_s, bench::peak_rss_mib());
  return k;
}

// How far --quick's ranking is from the planner's: the same first pick, the pairs ordered the
// other way, and the largest step --quick gives over the planner's.
void agreement(const CandidateRanking& full, const CandidateRanking& quick) {
  if (full.results.empty()) return;
  int swapped = 0, pairs = 0;
  double over = 0;
  const size_t n = full.results.size();
  for (size_t a = 0; a < n; ++a) {
    over = std::max(over, quick.results[a].step_s / full.results[a].step_s - 1);
    for (size_t b = a + 1; b < n; ++b) {
      const double f = full.results[a].step_s - full.results[b].step_s, q = quick.results[a].step_s - quick.results[b].step_s;
      ++pairs;
      swapped += (f < 0 && q > 0) || (f > 0 && q < 0);
    }
  }
  std::printf("  --quick against the planner: first pick %s (planner's best %.3f s, --quick's pick %.3f s), "
              "%d of %d pairs ordered the other way, step up to %.1f%% over the planner's\n",
              full.ranked.front() == quick.ranked.front() ? "the same" : "differs",
              full.results[full.ranked.front()].step_s, full.results[quick.ranked.front()].step_s, swapped, pairs,
              100 * over);
}

}  // namespace

int main(int argc, char** argv) {
  const int n_small = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int n_large = argc > 2 ? std::atoi(argv[2]) : 100;
  const int n_far = argc > 3 ? std::atoi(argv[3]) : 20;
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::printf("advise --candidates, one core\n");
  double t0 = now_s();
  const Cluster c = or_die(cluster_load(kSource + "/data/clusters/threetier-h100.json"));
  const Router r(c);
  std::printf("  threetier-h100 (%zu hosts) read in %.2f s\n", c.hosts().size(), now_s() - t0);
  Job small = or_die(job_load(kSource + "/data/jobs/llama3-70b.json"));
  small.parallel.dp = 32;
  small.training.global_batch = 512;
  run(c, r, small, n_small, true, true);
  run(c, r, small, n_small, true, false);
  const CandidateRanking far = run(c, r, small, n_far, false, true);
  agreement(far, run(c, r, small, n_far, false, false));

  // 16,384 GPUs need 2,048 of the hosts free: the same fabric with 2,944 hosts (23 pods).
  ClusterSpec spec = or_die(recipe_from_json(or_die(json_read_file(kSource + "/data/clusters/threetier-h100.json")),
                                             "threetier-h100.json"));
  spec.nodes = 2944;
  t0 = now_s();
  const Cluster big = or_die(cluster_build(spec));
  const Router rb(big);
  std::printf("  threetier-h100 at %zu hosts built in %.2f s\n", big.hosts().size(), now_s() - t0);
  const Job large = or_die(job_load(kSource + "/data/jobs/llama3-405b.json"));
  run(big, rb, large, n_large, true, false);
  run(big, rb, large, n_large, true, true);
  return 0;
}

// Times `observe`'s work past reading the files: every NIC port of a 16,384-GPU job (llama3-405b,
// TP8 PP16 DP128, on dgx-h100:2048) observed at rates unlike the prediction, so each of the 32,768
// directions is judged and every flagged one named with the groups that load it.
// Usage: bench_observe
#include <cstdio>

#include "bench/bench.h"
#include "observe/link_compare.h"
#include "planner/score.h"
#include "topology/load.h"

using namespace topoplan;
using bench::now_s;

int main() {
  const std::string src = TOPOPLAN_SOURCE_DIR;
  Result<Job> job = job_load(src + "/data/jobs/llama3-405b.json");
  if (!job) return std::fprintf(stderr, "%s\n", job.error().c_str()), 1;
  Result<Cluster> c = cluster_load("dgx-h100:2048");
  if (!c) return std::fprintf(stderr, "%s\n", c.error().c_str()), 1;
  Router router(*c);
  Result<Layout> layout = layout_default(*c, job_ranks(*job));
  if (!layout) return std::fprintf(stderr, "%s\n", layout.error().c_str()), 1;
  double t0 = now_s();
  Result<std::unique_ptr<ScoreState>> state = ScoreState::make(*c, router, *job, *layout);
  if (!state) return std::fprintf(stderr, "%s\n", state.error().c_str()), 1;
  Result<JobScore> score = score_report(*c, router, *job, **state);
  if (!score) return std::fprintf(stderr, "%s\n", score.error().c_str()), 1;
  const double t_score = now_s() - t0;

  t0 = now_s();
  std::vector<PortRate> rates;
  std::vector<PortLink> ports;
  for (const Host& h : c->hosts())
    for (VertexId nic : h.nics) {
      Result<PortLink> p = port_find(*c, c->device(nic).name, nullptr);
      if (!p) return std::fprintf(stderr, "%s\n", p.error().c_str()), 1;
      PortRate r;
      r.key = c->device(nic).name;
      r.window_s = 60;
      r.tx_Bps = 30e9 * (1 + static_cast<double>(rates.size() % 7));
      r.rx_Bps = 1e9;
      r.tx_discards = static_cast<double>(rates.size() % 3);
      rates.push_back(std::move(r));
      ports.push_back(*p);
    }
  ObserveOptions opt;
  opt.step_s = opt.model_step_s = score->step_s;
  const std::vector<LinkObservation> rows =
      observe_links(*c, rates, ports, link_phase_bytes(**state), phase_durations_us(**state), opt);
  std::vector<EdgeId> flagged;
  for (const LinkObservation& r : rows)
    if (!r.verdicts.empty()) flagged.push_back(r.edge);
  const double t_judge = now_s() - t0;
  t0 = now_s();
  const auto users = link_users(**state, router, flagged);
  size_t named = 0;
  for (const auto& entry : users) named += entry.second.size();
  std::printf("%s on %s: score %.2f s; %zu ports, %zu directions judged in %.3f s, %zu flagged; their groups (%zu) in "
              "%.3f s; peak RSS %.0f MiB\n",
              job->name.c_str(), c->name.c_str(), t_score, ports.size(), rows.size(), t_judge, flagged.size(), named,
              now_s() - t0, bench::peak_rss_mib());
  return 0;
}

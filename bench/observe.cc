// Times `observe`'s work past reading the files: every NIC port of a 16,384-GPU job (llama3-405b,
// TP8 PP16 DP128, on dgx-h100:2048) observed at rates unlike the prediction, so each of the 32,768
// directions is judged and every flagged one named with the groups that load it.
// Usage: bench_observe
#include <cstdio>

#include "bench/bench.h"
#include "observe/observe_job.h"

using namespace topoplan;
using bench::now_s;

int main() {
  const std::string src = TOPOPLAN_SOURCE_DIR;
  Result<std::unique_ptr<JobInputs>> in = job_inputs_load("dgx-h100:2048", src + "/data/jobs/llama3-405b.json", "", {});
  if (!in) return std::fprintf(stderr, "%s\n", in.error().c_str()), 1;
  const Cluster& c = (*in)->cluster;
  std::vector<PortRate> rates;
  for (const Host& h : c.hosts())
    for (VertexId nic : h.nics) {
      PortRate r;
      r.key = c.device(nic).name;
      r.window_s = 60;
      r.tx_Bps = 30e9 * (1 + static_cast<double>(rates.size() % 7));
      r.rx_Bps = 1e9;
      r.tx_discards = static_cast<double>(rates.size() % 3);
      rates.push_back(std::move(r));
    }

  double t0 = now_s();
  Result<PortMatch> match = port_match(c, std::move(rates), nullptr);
  if (!match) return std::fprintf(stderr, "%s\n", match.error().c_str()), 1;
  const double t_match = now_s() - t0;
  t0 = now_s();
  Result<ObserveJob> r = observe_job(**in, std::move(*match), {});
  if (!r) return std::fprintf(stderr, "%s\n", r.error().c_str()), 1;
  const double t_observe = now_s() - t0;
  size_t flagged = 0, named = 0;
  for (const LinkObservation& row : r->rows) flagged += !row.verdicts.empty();
  for (const auto& entry : r->users) named += entry.second.size();
  std::printf(
      "%s on %s: %zu ports matched in %.3f s; scored, %zu directions judged, %zu flagged and their groups "
      "(%zu) named in %.3f s; peak RSS %.0f MiB\n",
      (*in)->job.name.c_str(), c.name.c_str(), r->ports, t_match, r->rows.size(), flagged, named, t_observe,
      bench::peak_rss_mib());
  return 0;
}

// Times the collective cost model: one prediction on a 1,024-GPU group (each algorithm expanded
// and routed), and a full nccl-tests sweep (8 B .. 16 GiB) on a 16,384-GPU group; prints time and
// peak memory. Usage: bench_collective [SMALL_GPUS=1024] [LARGE_GPUS=16384]
#include <cstdio>
#include <cstdlib>

#include "bench/bench.h"
#include "cost/collective.h"
#include "topology/load.h"

using namespace topoplan;
using bench::now_s;

namespace {

int run(int gpus, CollectiveOp op, bool sweep) {
  ClusterSpec spec = *preset_spec_parse("dgx-h100:1");
  spec.nodes = (gpus + 7) / 8;
  double t0 = now_s();
  Result<Cluster> c = cluster_build(spec);
  if (!c) {
    std::fprintf(stderr, "%s\n", c.error().c_str());
    return 1;
  }
  Router router(*c);
  CollectiveModel model(*c, router);
  CollectiveRequest req;
  req.op = op;
  req.bytes = 1 << 30;
  req.gpus = c->gpus();
  double t1 = now_s();
  size_t rows = 1;
  std::string what;
  if (sweep) {
    Result<std::vector<CollectivePrediction>> r = model.sweep(req, 8, 16.0 * (1 << 30));
    if (!r) return std::fprintf(stderr, "%s\n", r.error().c_str()), 1;
    rows = r->size();
    what = r->back().algorithm;
  } else {
    Result<CollectivePrediction> r = model.predict(req);
    if (!r) return std::fprintf(stderr, "%s\n", r.error().c_str()), 1;
    what = r->algorithm + " " + std::to_string(r->time_us) + " us";
  }
  double t2 = now_s();
  std::printf("%-10s %6zu GPUs %-6s %3zu sizes: cluster %.3f s, %s %.1f ms (%s), peak RSS %.0f MiB\n",
              std::string(to_string(op)).c_str(), c->gpus().size(), sweep ? "sweep" : "1 size", rows, t1 - t0,
              sweep ? "sweep" : "prediction", (t2 - t1) * 1e3, what.c_str(), bench::peak_rss_mib());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int small = argc > 1 ? std::atoi(argv[1]) : 1024;
  int large = argc > 2 ? std::atoi(argv[2]) : 16384;
  int rc = 0;
  for (CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter})
    rc |= run(small, op, false);
  rc |= run(small, CollectiveOp::alltoall, false);
  rc |= run(large, CollectiveOp::all_reduce, true);
  rc |= run(large, CollectiveOp::all_gather, true);
  return rc;
}

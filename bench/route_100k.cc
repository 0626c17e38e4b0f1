// Builds a three-tier DGX H100 cluster and routes GPU pairs across it; prints time and peak memory.
// Usage: bench_route_100k [GPUS=100000] [PAIRS=20000] [ROUTING=adaptive|hash|static]
// Under hash or static routing each route is one connection's path (connection i of pair i).
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>

#include "bench/bench.h"
#include "topology/fabric.h"
#include "topology/load.h"
#include "topology/routing.h"

using namespace topoplan;

using bench::now_s;
using bench::peak_rss_mib;

int main(int argc, char** argv) {
  int gpus = argc > 1 ? std::atoi(argv[1]) : 100000;
  int pairs = argc > 2 ? std::atoi(argv[2]) : 20000;
  const std::optional<Routing> routing = routing_from(argc > 3 ? argv[3] : "adaptive");
  if (!routing) return std::fprintf(stderr, "unknown routing '%s'\n", argv[3]), 2;
  ClusterSpec spec = *preset_spec_parse("dgx-h100:1");
  spec.nodes = (gpus + 7) / 8;
  spec.fabric.nodes_per_pod = 128;
  spec.fabric.pod_oversubscription = 7;
  spec.fabric.routing = {*routing, "bench_route_100k's argument"};

  double t0 = now_s();
  Result<Cluster> c = cluster_build(spec);
  if (!c) {
    std::fprintf(stderr, "%s\n", c.error().c_str());
    return 2;
  }
  double t1 = now_s();
  Router router(*c);
  double t2 = now_s();
  // Every host's GPU 0 from the first GPU (one path set per destination leaf), then random pairs.
  size_t hops = 0;
  auto connection = [&](uint32_t i) {
    return *routing == Routing::adaptive ? RouteOptions{} : RouteOptions{NicPolicy::rail_aligned, false, i};
  };
  for (size_t h = 1; h < c->hosts().size(); ++h)
    hops += router.route(c->gpus()[0], c->hosts()[h].gpus[0], connection(static_cast<uint32_t>(h)))->hops.size();
  double t3 = now_s();
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<size_t> pick(0, c->gpus().size() - 1);
  for (int i = 0; i < pairs; ++i)
    hops += router.route(c->gpus()[pick(rng)], c->gpus()[pick(rng)], connection(static_cast<uint32_t>(i)))->hops.size();
  double t4 = now_s();

  std::printf("# three-tier DGX H100, pods of 128 nodes, 7:1 above the pods, %s routing\n",
              std::string(to_string(*routing)).c_str());
  std::printf("gpus %zu devices %zu directed_edges %zu\n", c->gpus().size(), c->num_devices(), c->num_edges());
  std::printf("build_s %.3f router_s %.3f route_from_one_s %.3f (%zu routes) random_pairs_s %.3f (%d routes)\n",
              t1 - t0, t2 - t1, t3 - t2, c->hosts().size() - 1, t4 - t3, pairs);
  std::printf("total_s %.3f cached_switch_paths %zu hops %zu peak_rss_MiB %.1f\n", t4 - t0,
              router.cached_switch_paths(), hops, peak_rss_mib());
  return 0;
}

// The host files a plan writes, read back as layouts (`score --layout slurm.hostfile`): they must
// give the ranks the GPUs the plan gave them, as far as a host file can say.
#include <doctest/doctest.h>

#include <algorithm>

#include "planner/emit/emit.h"
#include "planner/plan.h"
#include "tests/planner/emit/cases.h"
#include "tests/support.h"

namespace topoplan {
namespace {

std::string file_named(const std::vector<EmittedFile>& files, const std::string& name) {
  auto f = std::find_if(files.begin(), files.end(), [&](const EmittedFile& e) { return e.name == name; });
  REQUIRE_MESSAGE(f != files.end(), "no file " << name);
  return f->text;
}

std::vector<VertexId> read_back(const std::string& text, const std::string& name, const Cluster& c, int world) {
  Result<Layout> l = layout_parse(text, name, c, world);
  REQUIRE_MESSAGE(l.ok(), (l ? "" : l.error()));
  return l->gpu_of_rank;
}

// What a launcher gives from a host file: each rank on its host, the k-th rank of a host on the
// host's GPU k (the plan's own GPU order within a host is in ranks.env).
std::vector<VertexId> by_local_rank(const Cluster& c, const Layout& l) {
  std::vector<size_t> next(c.hosts().size(), 0);
  std::vector<VertexId> out;
  for (VertexId v : l.gpu_of_rank) {
    const size_t h = static_cast<size_t>(c.device(v).host);
    out.push_back(c.hosts()[h].gpus[next[h]++]);
  }
  return out;
}

}  // namespace

TEST_CASE("emit read back: the planner's slurm.hostfile and ompi.hostfile give the plan's rank -> GPU map") {
  // Two hosts from each of four pods, listed round-robin: the planner regroups and reorders them.
  Cluster c = test::load_cluster((test::data_dir() / "clusters" / "pods-16-h100.json").string());
  Router r(c);
  Job job = test::small_job();
  job.parallel.tp = job.parallel.expert_tp = 8;
  job.parallel.dp = 4;
  PlanRequest req;
  req.free = {0, 4, 8, 12, 1, 5, 9, 13};
  Result<Plan> plan = plan_job(c, r, job, req);
  REQUIRE_MESSAGE(plan.ok(), (plan ? "" : plan.error()));
  const int world = plan->layout.world_size();
  REQUIRE(world == 64);
  const EmitInput in{c, r, plan->job, plan->layout};
  Result<std::vector<EmittedFile>> slurm = emit("slurm-hostfile", in), ompi = emit("ompi-rankfile", in);
  REQUIRE(slurm.ok());
  REQUIRE(ompi.ok());
  // The planner keeps GPUs in order within a host (else the files would point to ranks.env), so
  // the host files alone place every rank.
  REQUIRE(by_local_rank(c, plan->layout) == plan->layout.gpu_of_rank);
  CHECK(read_back(file_named(*slurm, "slurm.hostfile"), "slurm.hostfile", c, world) == plan->layout.gpu_of_rank);
  CHECK(read_back(file_named(*ompi, "ompi.hostfile"), "ompi.hostfile", c, world) == plan->layout.gpu_of_rank);
}

TEST_CASE("emit read back: ompi.hostfile gives each host its block of ranks, GPUs in local-rank order") {
  // Not dgx-h100-interleaved: there the rankfile places the ranks, the hostfile only counts them.
  for (const char* name : {"dgx-h100-default", "dgx-h100-permuted", "pcie-l40s-default", "pcie-l40s-permuted", "explicit-graph"}) {
    CAPTURE(name);
    auto e = test::emit_case(name);
    const std::string text = file_named(test::emit_ok("ompi-rankfile", *e), "ompi.hostfile");
    const std::vector<VertexId> back = read_back(text, "ompi.hostfile", e->cluster, e->layout.world_size());
    CHECK(back == by_local_rank(e->cluster, e->layout));
    if (std::string(name).ends_with("default")) CHECK(back == e->layout.gpu_of_rank);
  }
}

}  // namespace topoplan

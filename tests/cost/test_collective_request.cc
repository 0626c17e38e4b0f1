#include "cost/collective_request.h"

#include <doctest/doctest.h>

#include "tests/support.h"

namespace topoplan {
namespace {

TEST_CASE("collective_request_parse: auto leaves the choice to the tuner; errors name the option") {
  Result<CollectiveRequest> r = collective_request_parse("all_gather", "auto", "auto");
  REQUIRE(r.ok());
  CHECK(r->op == CollectiveOp::all_gather);
  CHECK(!r->algo);
  CHECK(!r->proto);
  r = collective_request_parse("all_reduce", "NVLSTree", "LL128");
  REQUIRE(r.ok());
  CHECK(r->algo == NcclAlgo::nvls_tree);
  CHECK(r->proto == NcclProto::ll128);
  CHECK(collective_request_parse("allreduce", "auto", "auto").error().rfind("--op: ", 0) == 0);
  CHECK(collective_request_parse("all_reduce", "collnet_direct", "auto").error() ==
        "--algo: expected auto, ring, tree, nvls, nvlstree or pat, got 'collnet_direct'");
  CHECK(collective_request_parse("all_reduce", "ring", "fast").error() ==
        "--proto: expected auto, ll, ll128 or simple, got 'fast'");
}

TEST_CASE("collective_gpus_pick: indices in order, the first few of each host, at least 2") {
  const Cluster c = test::load_cluster("dgx-h100:2");
  Result<std::vector<VertexId>> all = collective_gpus_pick(c, "", 0);
  REQUIRE(all.ok());
  CHECK(*all == c.gpus());
  Result<std::vector<VertexId>> some = collective_gpus_pick(c, "9,0-2", 0);
  REQUIRE(some.ok());
  CHECK(*some == std::vector<VertexId>{c.gpus()[9], c.gpus()[0], c.gpus()[1], c.gpus()[2]});
  Result<std::vector<VertexId>> one_each = collective_gpus_pick(c, "", 1);
  REQUIRE(one_each.ok());
  CHECK(*one_each == std::vector<VertexId>{c.gpus()[0], c.gpus()[8]});
  CHECK(collective_gpus_pick(c, "0-16", 0).error().rfind("--gpus: ", 0) == 0);
  CHECK(collective_gpus_pick(c, "0,1", 1).error() == "--gpus: a collective needs at least 2 GPUs, got 1");
}

}  // namespace
}  // namespace topoplan

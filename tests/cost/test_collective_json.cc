#include "cost/collective_json.h"

#include <doctest/doctest.h>

#include "tests/support.h"

namespace topoplan {
namespace {

TEST_CASE("collective_prediction_to_json: the choice, its bottleneck and every candidate's terms") {
  const Cluster c = test::load_cluster("dgx-h100:2");
  Router router(c);
  CollectiveModel model(c, router, nccl_tuning_default(), calibration_default());
  CollectiveRequest req;
  req.op = CollectiveOp::all_reduce;
  req.bytes = 1 << 30;
  req.gpus = c.gpus();
  Result<CollectivePrediction> p = model.predict(req);
  REQUIRE_MESSAGE(p.ok(), (p ? "" : p.error()));
  const nlohmann::json j = collective_prediction_to_json(*p);
  CHECK(j["op"] == "all_reduce");
  CHECK(j["ranks"] == 16);
  CHECK(j["nodes"] == 2);
  CHECK(j["algorithm"] == p->algorithm);
  CHECK(j["time_us"].get<double>() == doctest::Approx(p->time_us));
  CHECK(j["bottleneck"]["link"] == p->bottleneck.link);
  CHECK(j.contains("routing"));
  CHECK(j.contains("even_split_bottleneck") == p->even_bottleneck.has_value());
  REQUIRE(j["candidates"].size() == p->candidates.size());
  CHECK(j["candidates"][0]["terms"]["nccl_latency_us"].get<double>() ==
        doctest::Approx(p->candidates[0].nccl_latency_us));
}

}  // namespace
}  // namespace topoplan

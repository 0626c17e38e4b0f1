#include "cost/collective_text.h"

#include <doctest/doctest.h>

#include "tests/support.h"

namespace topoplan {
namespace {

Result<CollectivePrediction> predict(const Cluster& c, double bytes) {
  Router router(c);
  CollectiveModel model(c, router, nccl_tuning_default(), calibration_default());
  CollectiveRequest req;
  req.op = CollectiveOp::all_reduce;
  req.bytes = bytes;
  req.gpus = c.gpus();
  return model.predict(req);
}

TEST_CASE("collective_text: the choice, its time, its busiest link and the candidates") {
  const Cluster c = test::load_cluster("dgx-h100:2");
  Result<CollectivePrediction> p = predict(c, 1 << 30);
  REQUIRE_MESSAGE(p.ok(), (p ? "" : p.error()));
  const std::string text = collective_text(*p);
  CHECK(text.rfind("all_reduce 1 GiB on 16 GPUs (2 nodes, ", 0) == 0);
  CHECK(text.find("\n  busiest link " + p->bottleneck.link + " (") != std::string::npos);
  CHECK(text.find("\n  routing: ") != std::string::npos);
  CHECK(text.find("\n  candidates: " + p->algorithm + "/") != std::string::npos);
  CHECK(text.back() == '\n');
}

TEST_CASE("collective_why_text: the chosen pair beside the runner-up, term by term") {
  const Cluster c = test::load_cluster("dgx-h100:2");
  Result<CollectivePrediction> p = predict(c, 1 << 30);
  REQUIRE_MESSAGE(p.ok(), (p ? "" : p.error()));
  REQUIRE(p->candidates.size() >= 2);
  const std::string text = collective_why_text(c, *p);
  CHECK(text.rfind("why " + p->algorithm + "/", 0) == 0);
  CHECK(text.find("(chosen)") != std::string::npos);
  CHECK(text.find("(runner-up)") != std::string::npos);
  CHECK(text.find("NCCL latency") != std::string::npos);
  CHECK(text.find("; bound by ") != std::string::npos);
  CHECK(text.find("  the runner-up ") != std::string::npos);
}

TEST_CASE("collective_sweep_text: nccl-tests' layout, one row per size") {
  const Cluster c = test::load_cluster("dgx-a100:1");
  Router router(c);
  CollectiveModel model(c, router, nccl_tuning_default(), calibration_default());
  CollectiveRequest req;
  req.op = CollectiveOp::all_reduce;
  req.gpus = c.gpus();
  Result<std::vector<CollectivePrediction>> rows = model.sweep(req, 8, 1024);
  REQUIRE_MESSAGE(rows.ok(), (rows ? "" : rows.error()));
  const std::string text = collective_sweep_text("dgx-a100:1", *rows);
  CHECK(text.rfind("# topoplan collective all_reduce on dgx-a100:1: 8 ranks, 1 node", 0) == 0);
  int rows_seen = 0;
  for (size_t at = text.find('\n'); at != std::string::npos && at + 1 < text.size(); at = text.find('\n', at + 1))
    rows_seen += text[at + 1] != '#';
  CHECK(rows_seen == static_cast<int>(rows->size()));
}

}  // namespace
}  // namespace topoplan

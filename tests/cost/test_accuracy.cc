// Every row of ../shared/reference/measurements.json, run as the row says (through the CLI), with
// predicted, measured and the error printed; a row outside its tolerance fails.
#include <doctest/doctest.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "tests/cost/accuracy_rows.h"
#include "tests/support.h"

namespace topoplan {
namespace {

TEST_CASE("accuracy: every published nccl-tests row within its tolerance" * doctest::skip(test::reference_absent())) {
  auto dir = test::reference_dir();
  if (!dir) return;
  nlohmann::json doc = nlohmann::json::parse(test::read_file(*dir / "measurements.json"));
  int outside = 0;
  std::printf("%-4s %-12s %-14s %-7s %-5s %-10s %-7s %10s %10s %8s %6s\n", "id", "cluster", "op", "size", "gpus",
              "algorithm", "proto", "predicted", "measured", "error", "tol");
  for (const nlohmann::json& row : doc.at("rows")) {
    const std::string id = row.at("id");
    const test::RowOutcome r = test::run_row(row);
    const bool ok = r.within();
    outside += !ok;
    std::printf("%-4s %-12s %-14s %-7s %-5s %-10s %-7s %10.2f %10.2f %+7.1f%% %5.0f%% %s\n", id.c_str(),
                row.at("cluster").get<std::string>().c_str(), row.at("op").get<std::string>().c_str(),
                row.at("size").get<std::string>().c_str(), row.value("gpus", "").c_str(), r.algorithm.c_str(),
                r.protocol.c_str(), r.predicted, r.measured, r.error * 100, r.tolerance * 100, ok ? "" : "OUTSIDE");
    CHECK_MESSAGE(ok, id << " " << row.at("metric").get<std::string>() << ": predicted " << r.predicted << ", measured "
                         << r.measured << " (" << r.error * 100 << " %, tolerance " << r.tolerance * 100 << " %)");
  }
  std::printf("%d of %zu rows outside their tolerance\n", outside, doc.at("rows").size());
}

}  // namespace
}  // namespace topoplan

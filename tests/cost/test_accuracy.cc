// Every row of ../shared/reference/measurements.json, run as the row says (through the CLI), with
// predicted, measured and the error printed; a row outside its tolerance fails unless it is a
// known miss below, with its reason, and a known miss that comes within fails too (mark it).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "tests/cost/accuracy_rows.h"
#include "tests/support.h"

namespace topoplan {
namespace {

// What the model does not explain, row by row. Each names the mechanism it lacks, not a constant.
const std::map<std::string, std::string> kKnownMisses = {
    {"D5",
     "8 H100 at 1 MiB (NCCL 2.18.5): NCCL 2.25's tuner rates ring/LL (28.0 us) and NVLS (28.9 us) within a "
     "microsecond and runs ring/LL, 28.0 us on the links; NVLS would take 36.5 us. The 42 us measured is slower "
     "than either; which one 2.18.5 ran is not published."},
    {"D15",
     "8 A100 at 32 KiB: 43.8 us measured against NCCL's own ring/LL latency of 15.6 us; the same source's "
     "small calls run 2-3x NCCL's latency where 8 H20 run under it (deepseek-ai/DeepEP#303), a host path this "
     "system's own runs calibrate (launch_us)."},
    {"D16", "as D15 at 1 MiB: 101.9 us, slower per byte than the same source's 8 MiB row (133.5 us)."},
    {"D18",
     "8 A100 at 128 MiB: 1327.6 us, 290 us over the ring's link time at the NVLink rate D14 and D19 "
     "confirm (1 GiB: 318 us over); a fixed cost this large per call has no mechanism here (NCCL's tree "
     "would take 1.31 ms, but NCCL 2.25 runs the ring; the source's NCCL version is not given)."},
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

TEST_CASE("accuracy: every published nccl-tests row within its tolerance" * doctest::skip(test::reference_absent())) {
  auto dir = test::reference_dir();
  if (!dir) return;
  nlohmann::json doc = nlohmann::json::parse(test::read_file(*dir / "measurements.json"));
  int outside = 0;
  std::vector<double> errors;
  std::printf("%-4s %-12s %-14s %-7s %-5s %-10s %-7s %10s %10s %8s %6s\n", "id", "cluster", "op", "size", "gpus",
              "algorithm", "proto", "predicted", "measured", "error", "tol");
  for (const nlohmann::json& row : doc.at("rows")) {
    const std::string id = row.at("id");
    const test::RowOutcome r = test::run_row(row);
    const bool ok = r.within();
    const auto miss = kKnownMisses.find(id);
    outside += !ok;
    errors.push_back(std::abs(r.error));
    std::printf("%-4s %-12s %-14s %-7s %-5s %-10s %-7s %10.2f %10.2f %+7.1f%% %5.0f%% %s\n", id.c_str(),
                row.at("cluster").get<std::string>().c_str(), row.at("op").get<std::string>().c_str(),
                row.at("size").get<std::string>().c_str(), row.value("gpus", "").c_str(), r.algorithm.c_str(),
                r.protocol.c_str(), r.predicted, r.measured, r.error * 100, r.tolerance * 100,
                ok ? (miss == kKnownMisses.end() ? "" : "NOW WITHIN")
                   : (miss == kKnownMisses.end() ? "OUTSIDE" : "known miss"));
    const std::string figures = row.at("metric").get<std::string>() + ": predicted " + std::to_string(r.predicted) +
                                ", measured " + std::to_string(r.measured) + " (" + std::to_string(r.error * 100) +
                                " %, tolerance " + std::to_string(r.tolerance * 100) + " %)";
    if (miss == kKnownMisses.end())
      CHECK_MESSAGE(ok, id << " " << figures);
    else
      CHECK_MESSAGE(!ok, id << " is now within its tolerance, take it off the known misses: " << figures);
  }
  for (const auto& [id, reason] : kKnownMisses) std::printf("known miss %s: %s\n", id.c_str(), reason.c_str());
  std::printf("%d of %zu rows outside their tolerance (%zu known misses), median |error| %.1f %%\n", outside,
              doc.at("rows").size(), kKnownMisses.size(), median(errors) * 100);
}

}  // namespace
}  // namespace topoplan

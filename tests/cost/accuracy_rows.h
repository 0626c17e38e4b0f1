// One row of a measurements file (the fields of ../shared/reference/measurements.json) run through
// the CLI in this process: shared by test_accuracy.cc (../shared) and test_published_rows.cc (our
// dev set), so both read a row the same way.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace topoplan::test {

// A row's prediction beside its measurement; error = predicted / measured - 1.
struct RowOutcome {
  std::string algorithm, protocol;
  double predicted = 0, measured = 0, tolerance = 0, error = 0;
  // NCCL's own estimate (its tuner's cost model) of the same pair, in the row's metric, and its
  // error; nccl_predicted < 0 where NCCL has none (alltoall, sendrecv).
  double nccl_predicted = -1, nccl_error = 0;
  bool within() const { return std::abs(error) <= tolerance; }
};

// `collective --cluster C --op O --size S [--gpus G] [--algo A] --json` for a row.
std::vector<std::string> collective_args(const nlohmann::json& row);

// Runs the row through cli::cli_main and reads its metric; the test stops (REQUIRE) with the CLI's
// message, naming the row, when the command fails.
RowOutcome run_row(const nlohmann::json& row);

}  // namespace topoplan::test

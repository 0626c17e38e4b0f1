#include "tests/cost/accuracy_rows.h"

#include <doctest/doctest.h>

#include <sstream>

#include "cli/tool.h"

namespace topoplan::test {

std::vector<std::string> collective_args(const nlohmann::json& row) {
  std::vector<std::string> args{"collective", "--cluster", row.at("cluster"), "--op",
                                row.at("op"), "--size",    row.at("size"),    "--json"};
  if (row.contains("gpus")) args.insert(args.end(), {"--gpus", row.at("gpus")});
  if (row.contains("algo")) args.insert(args.end(), {"--algo", row.at("algo")});
  return args;
}

RowOutcome run_row(const nlohmann::json& row) {
  const std::vector<std::string> args = collective_args(row);
  std::vector<const char*> argv{"topoplan"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int rc = cli::cli_main(static_cast<int>(argv.size()), argv.data(), out, err);
  REQUIRE_MESSAGE(rc == 0, row.at("id").get<std::string>() << ": " << err.str());
  const nlohmann::json j = nlohmann::json::parse(out.str());
  RowOutcome r;
  r.algorithm = j.at("algorithm");
  r.protocol = j.at("protocol");
  r.predicted = j.at(row.at("metric").get<std::string>());
  r.measured = row.at("value");
  r.tolerance = row.at("tolerance");
  r.error = r.predicted / r.measured - 1;
  const double time_us = j.at("time_us"), nccl_us = j.at("candidates").at(0).at("terms").at("nccl_time_us");
  if (nccl_us > 0) {
    // busbw and algbw scale with 1 / time.
    r.nccl_predicted = row.at("metric") == "time_us" ? nccl_us : r.predicted * time_us / nccl_us;
    r.nccl_error = r.nccl_predicted / r.measured - 1;
  }
  return r;
}

}  // namespace topoplan::test

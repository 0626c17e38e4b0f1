// Every row of ../shared/reference/measurements.json, run as the row says (through the CLI), with
// predicted, measured and the error printed; a row outside its tolerance fails.
#include <doctest/doctest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/tool.h"
#include "tests/support.h"

namespace topoplan {
namespace {

struct Outcome {
  int exit_code;
  std::string out, err;
};

Outcome topoplan_in_process(const std::vector<std::string>& args) {
  std::vector<const char*> argv{"topoplan"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  int rc = cli::cli_main(static_cast<int>(argv.size()), argv.data(), out, err);
  return {rc, out.str(), err.str()};
}

TEST_CASE("accuracy: every published nccl-tests row within its tolerance") {
  auto dir = test::reference_dir();
  if (!dir) return;
  nlohmann::json doc = nlohmann::json::parse(test::read_file(*dir / "measurements.json"));
  int outside = 0;
  std::printf("%-4s %-12s %-14s %-7s %-5s %-10s %-7s %10s %10s %8s %6s\n", "id", "cluster", "op", "size", "gpus",
              "algorithm", "proto", "predicted", "measured", "error", "tol");
  for (const nlohmann::json& row : doc.at("rows")) {
    std::vector<std::string> args{"collective", "--cluster", row.at("cluster"), "--op", row.at("op"),
                                  "--size",     row.at("size"), "--json"};
    if (row.contains("gpus")) args.insert(args.end(), {"--gpus", row.at("gpus")});
    if (row.contains("algo")) args.insert(args.end(), {"--algo", row.at("algo")});
    Outcome r = topoplan_in_process(args);
    const std::string id = row.at("id");
    REQUIRE_MESSAGE(r.exit_code == 0, id << ": " << r.err);
    nlohmann::json j = nlohmann::json::parse(r.out);
    const double predicted = j.at(row.at("metric").get<std::string>()).get<double>();
    const double measured = row.at("value").get<double>(), tolerance = row.at("tolerance").get<double>();
    const double error = predicted / measured - 1;
    const bool ok = std::abs(error) <= tolerance;
    outside += !ok;
    std::printf("%-4s %-12s %-14s %-7s %-5s %-10s %-7s %10.2f %10.2f %+7.1f%% %5.0f%% %s\n", id.c_str(),
                row.at("cluster").get<std::string>().c_str(), row.at("op").get<std::string>().c_str(),
                row.at("size").get<std::string>().c_str(), row.value("gpus", "").c_str(),
                j.at("algorithm").get<std::string>().c_str(), j.at("protocol").get<std::string>().c_str(), predicted,
                measured, error * 100, tolerance * 100, ok ? "" : "OUTSIDE");
    CHECK_MESSAGE(ok, id << " " << row.at("metric").get<std::string>() << ": predicted " << predicted << ", measured "
                         << measured << " (" << error * 100 << " %, tolerance " << tolerance * 100 << " %)");
  }
  std::printf("%d of %zu rows outside their tolerance\n", outside, doc.at("rows").size());
}

}  // namespace
}  // namespace topoplan

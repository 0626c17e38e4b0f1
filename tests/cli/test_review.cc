#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support.h"

using topoplan::test::run_topoplan;

namespace {

// Rank-order host lists on data/clusters/pods-16-h100.json (pods of 4 hosts, 4:1 above).
std::string layout_file(const std::filesystem::path& dir, const std::string& name, const std::vector<int>& hosts) {
  const auto path = dir / name;
  std::ofstream f(path);
  for (int h : hosts)
    for (int k = 0; k < 8; ++k) f << "h" << std::setw(3) << std::setfill('0') << h << "\n";
  return path.string();
}

}  // namespace

TEST_CASE("review: pass, fail on the threshold or a critical finding, bad input") {
  const auto dir = topoplan::test::temp_dir("review");
  const std::string base = "review --cluster " + (topoplan::test::data_dir() / "clusters" / "pods-16-h100.json").string() +
                           " --job " + (topoplan::test::data_dir() / "jobs" / "llama3-70b.json").string();
  // llama3-70b: TP 8, PP 4, DP 4 on 16 hosts; grouped by pod every DP group stays in a pod.
  std::vector<int> grouped, interleaved;
  for (int h = 1; h <= 16; ++h) grouped.push_back(h);
  for (int i = 0; i < 4; ++i)
    for (int p = 0; p < 4; ++p) interleaved.push_back(4 * p + i + 1);
  auto pass = run_topoplan(base + " --layout " + layout_file(dir, "grouped", grouped) + " --max-slowdown 1.2");
  CHECK_MESSAGE(pass.exit_code == 0, pass.err);
  CHECK(pass.out.starts_with("PASS llama3-70b, layout "));
  auto slow = run_topoplan(base + " --layout " + layout_file(dir, "interleaved", interleaved) + " --max-slowdown 1.05 --json");
  CHECK_MESSAGE(slow.exit_code == 1, slow.err);
  auto j = nlohmann::json::parse(slow.out);
  CHECK(j["verdict"] == "fail");
  CHECK(j["slowdown"].get<double>() > 1.05);
  CHECK(j["reasons"][0] == "over --max-slowdown 1.05");
  CHECK(j["best"]["format"] == "topoplan-plan");
  // TP split over two hosts: a critical finding fails whatever the thresholds.
  std::string split;
  {
    std::ofstream f(dir / "split");
    for (int h = 1; h <= 16; ++h)
      for (int k = 0; k < 8; ++k) f << "h" << std::setw(3) << std::setfill('0') << (k < 4 ? h : (h % 16) + 1) << "\n";
  }
  auto tp = run_topoplan(base + " --layout " + (dir / "split").string());
  CHECK(tp.exit_code == 1);
  CHECK(tp.out.starts_with("FAIL "));
  CHECK(tp.out.find("critical finding") != std::string::npos);
  // Bad input: exit 2.
  CHECK(run_topoplan(base).exit_code == 2);  // --layout is required
  CHECK(run_topoplan(base + " --layout " + (dir / "grouped").string() + " --max-slowdown 0.5").exit_code == 2);
  CHECK(run_topoplan(base + " --layout " + (dir / "grouped").string() + " --max-exposed 2s --max-slowdown 1.1").exit_code == 2);
  auto missing = run_topoplan(base + " --layout /nonexistent/layout");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.starts_with("topoplan: error: /nonexistent/layout: cannot read"));
  std::filesystem::remove_all(dir);
}

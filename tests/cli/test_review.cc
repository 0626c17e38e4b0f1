#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

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
  const std::string base = "review --cluster " +
                           (topoplan::test::data_dir() / "clusters" / "pods-16-h100.json").string() + " --job " +
                           (topoplan::test::data_dir() / "jobs" / "llama3-70b.json").string();
  // llama3-70b: TP 8, PP 4, DP 4 on 16 hosts; grouped by pod every DP group stays in a pod.
  std::vector<int> grouped, interleaved;
  for (int h = 1; h <= 16; ++h) grouped.push_back(h);
  for (int i = 0; i < 4; ++i)
    for (int p = 0; p < 4; ++p) interleaved.push_back(4 * p + i + 1);
  auto pass = run_topoplan(base + " --layout " + layout_file(dir, "grouped", grouped) + " --max-slowdown 1.2");
  CHECK_MESSAGE(pass.exit_code == 0, pass.err);
  CHECK(pass.out.starts_with("PASS llama3-70b, layout "));
  // The default gate (1.25x) fails the interleaved order, 1.47x the best; 'none' lifts it.
  auto gated = run_topoplan(base + " --layout " + layout_file(dir, "interleaved", interleaved));
  CHECK(gated.exit_code == 1);
  CHECK(gated.out.find("1.47x the planner's best") != std::string::npos);
  CHECK(gated.out.find(", limit 1.25x: over --max-slowdown 1.25\n") != std::string::npos);
  auto ungated =
      run_topoplan(base + " --layout " + layout_file(dir, "interleaved", interleaved) + " --max-slowdown none");
  CHECK(ungated.exit_code == 0);
  CHECK(ungated.out.find(", no slowdown limit\n") != std::string::npos);
  auto slow =
      run_topoplan(base + " --layout " + layout_file(dir, "interleaved", interleaved) + " --max-slowdown 1.05 --json");
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
  // A job over its GPUs' memory fails whatever its layout, and says so rather than counting groups.
  {
    nlohmann::json job = nlohmann::json::parse(
        topoplan::test::read_file(topoplan::test::data_dir() / "jobs" / "llama3-70b.json"));
    job["parallel"] = {{"tp", 1}, {"pp", 1}, {"dp", 128}};
    std::ofstream(dir / "tp1.json") << job.dump();
    auto over = run_topoplan("review --cluster " +
                             (topoplan::test::data_dir() / "clusters" / "pods-16-h100.json").string() + " --job " +
                             (dir / "tp1.json").string() + " --layout " + (dir / "grouped").string() + " --json");
    CHECK(over.exit_code == 1);
    const nlohmann::json reasons = nlohmann::json::parse(over.out)["reasons"];
    REQUIRE(reasons.size() == 1);
    CHECK(reasons[0].get<std::string>().starts_with("the job does not fit in GPU memory (stage 0: "));
    CHECK(reasons[0].get<std::string>().ends_with(" over)"));
  }
  // Bad input: exit 2.
  CHECK(run_topoplan(base).exit_code == 2);  // --layout is required
  for (const char* bad : {"0.5", "abc", "1.2x", "inf", ""}) {
    auto r = run_topoplan(base + " --layout " + (dir / "grouped").string() + " --max-slowdown '" + bad + "'");
    CAPTURE(bad);
    CHECK(r.exit_code == 2);
    CHECK(r.err.starts_with("topoplan: error: --max-slowdown: expected a multiple of the planner's best"));
  }
  // Both gates at once: the exposed time's fails, the slowdown's passes.
  auto both =
      run_topoplan(base + " --layout " + (dir / "grouped").string() + " --max-exposed 1s --max-slowdown 1.1 --json");
  CHECK(both.exit_code == 1);
  CHECK(nlohmann::json::parse(both.out)["reasons"] == nlohmann::json::array({"over --max-exposed 1 s"}));
  auto missing = run_topoplan(base + " --layout /nonexistent/layout");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.starts_with("topoplan: error: /nonexistent/layout: cannot read"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("review: the default gate fails a pod-interleaved allocation on threetier-h100 and passes its plan") {
  const auto dir = topoplan::test::temp_dir("review-threetier");
  const std::string common = "--cluster " + (topoplan::test::data_dir() / "clusters" / "threetier-h100.json").string() +
                             " --job " + (topoplan::test::data_dir() / "jobs" / "llama3-70b.json").string();
  // Four hosts from each of four pods of 128, one pod after another in turn.
  std::vector<int> hosts;
  for (int i = 0; i < 4; ++i)
    for (int p = 0; p < 4; ++p) hosts.push_back(128 * p + i + 1);
  const auto path = dir / "interleaved";
  std::string nodes;
  {
    std::ofstream f(path);
    for (int h : hosts) {
      std::ostringstream name;
      name << "h" << std::setw(4) << std::setfill('0') << h;
      nodes += (nodes.empty() ? "" : ",") + name.str();
      for (int k = 0; k < 8; ++k) f << name.str() << "\n";
    }
  }
  auto r = run_topoplan("review " + common + " --layout " + path.string() + " --json");
  CHECK(r.exit_code == 1);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["slowdown"].get<double>() > 1.25);
  CHECK(j["max_slowdown"] == 1.25);
  auto plan = run_topoplan("plan " + common + " --nodes " + nodes + " --emit json -o " + (dir / "out").string());
  REQUIRE_MESSAGE(plan.exit_code == 0, plan.err);
  auto ok = run_topoplan("review " + common + " --layout " + (dir / "out" / "plan.json").string());
  CHECK_MESSAGE(ok.exit_code == 0, ok.out);
  CHECK(ok.out.starts_with("PASS "));
  std::filesystem::remove_all(dir);
}

#include "validate/calibrate.h"

#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cost/collective.h"
#include "tests/support.h"
#include "validate/calibrate_json.h"
#include "validate/nccl_tests_format.h"

namespace topoplan {
namespace {

size_t kind(LinkKind k) { return static_cast<size_t>(k); }

// Series "measured" on a machine whose links deliver `truth`: the model's own times under it.
std::vector<CalibrationSeries> measured_under(const Cluster& c, const Router& r, const Calibration& truth) {
  const std::vector<VertexId>& g = c.gpus();
  std::vector<CalibrationSeries> out = {
      {"all_gather on one host", CollectiveOp::all_gather, {g.begin(), g.begin() + 8}, {}, false},
      {"all_reduce over two hosts", CollectiveOp::all_reduce, {g.begin(), g.begin() + 16}, {}, false},
      {"sendrecv between hosts", CollectiveOp::sendrecv, {g[0], g[8]}, {}, false},
  };
  CollectiveModel model(c, r, nccl_tuning_default(), truth);
  for (CalibrationSeries& s : out)
    for (double bytes = 64 * 1024.0; bytes <= 1024.0 * 1024 * 1024; bytes *= 4)
      s.points.push_back({bytes, model.predict({s.op, bytes, s.gpus, std::nullopt, std::nullopt})->time_us});
  return out;
}

}  // namespace

TEST_CASE("calibrate: least squares on time = alpha + bytes / beta") {
  // An exact line: alpha 20 us, beta 50 GB/s.
  std::vector<CalibrationPoint> line;
  for (double b : {1e3, 1e5, 1e7, 1e9}) line.push_back({b, 20 + b / 50e3});
  LinearFit f = linear_fit(line);
  CHECK(f.alpha_us == doctest::Approx(20));
  CHECK(f.beta_GBps == doctest::Approx(50));
  CHECK(f.at(1e6) == doctest::Approx(40));
  // Time that does not grow with the size: latency only.
  f = linear_fit({{1e3, 30}, {1e4, 30}});
  CHECK(f.beta_GBps == 0);
  CHECK(f.alpha_us == doctest::Approx(30));
  // A line through a negative intercept is refitted through zero.
  f = linear_fit({{1e6, 10}, {2e6, 30}});
  CHECK(f.alpha_us == 0);
  CHECK(f.beta_GBps > 0);
}

TEST_CASE("calibrate: recovers the efficiencies and latencies the measurements were made with") {
  Cluster c = test::load_cluster("dgx-h100:2");
  Router r(c);
  Calibration truth = calibration_default();
  const size_t hopper = static_cast<size_t>(GpuArch::hopper);
  truth.nvl_efficiency[hopper] = 0.7;
  truth.efficiency[kind(LinkKind::NET)] = 0.6;
  truth.launch_us = 50;
  truth.latency_us[kind(LinkKind::NET)] = 20;
  const std::vector<CalibrationSeries> series = measured_under(c, r, truth);
  Result<CalibrationFit> fit =
      calibrate(c, r, nccl_tuning_default(), calibration_default(), series, {4.0 * 1024 * 1024});
  REQUIRE_MESSAGE(fit.ok(), fit.error());
  const Calibration& got = fit->calibration;
  for (const SeriesFit& s : fit->series) CHECK(s.cls.has_value());
  // The NVLink class is whatever the one-host series runs on (ring or NVLS); NET is the NICs.
  CHECK(got.efficiency[kind(LinkKind::NET)] == doctest::Approx(0.6).epsilon(0.03));
  if (fit->series[0].cls == kNvlClass + hopper) {
    CHECK(got.nvl_efficiency[hopper] == doctest::Approx(0.7).epsilon(0.03));
  } else {
    CHECK(fit->series[0].cls == kNvlsClass + static_cast<size_t>(NvlsDomain::hopper));
  }
  CHECK(got.launch_us == doctest::Approx(50).epsilon(0.1));
  CHECK(got.launch_us + got.latency_us[kind(LinkKind::NET)] == doctest::Approx(70).epsilon(0.1));
  CHECK(fit->iterations < 12);
  // The held-out size is predicted with the result: as measured.
  REQUIRE(fit->held_out.size() == series.size());
  for (const HeldOut& h : fit->held_out) CHECK(std::abs(h.error()) < 0.05);
  // Fitted again from its own result, nothing moves.
  Result<CalibrationFit> again = calibrate(c, r, nccl_tuning_default(), got, series, {});
  REQUIRE(again.ok());
  CHECK(again->calibration.efficiency[kind(LinkKind::NET)] ==
        doctest::Approx(got.efficiency[kind(LinkKind::NET)]).epsilon(0.01));
}

TEST_CASE("calibrate: what cannot be fitted is said, not guessed") {
  Cluster c = test::load_cluster("dgx-h100:2");
  Router r(c);
  const std::vector<VertexId>& g = c.gpus();
  // One size only, and one rank: nothing to fit.
  std::vector<CalibrationSeries> series = {
      {"one size", CollectiveOp::all_reduce, {g[0], g[1]}, {{1e6, 30}}, false},
      {"one rank", CollectiveOp::all_reduce, {g[0]}, {{1e6, 30}, {2e6, 40}}, false}};
  Result<CalibrationFit> fit = calibrate(c, r, nccl_tuning_default(), calibration_default(), series, {});
  REQUIRE_FALSE(fit.ok());
  CHECK(fit.error().starts_with("no series to fit"));
  // Held out down to one size: that series is left out, by name.
  series.push_back({"two sizes", CollectiveOp::all_reduce, {g[0], g[8]}, {{1e6, 60}, {4e6, 130}, {16e6, 400}}, false});
  fit = calibrate(c, r, nccl_tuning_default(), calibration_default(), series, {16e6});
  REQUIRE_MESSAGE(fit.ok(), fit.error());
  CHECK(fit->series[0].why_not == "needs two sizes or more to fit (it has 1)");
  CHECK(fit->series[1].why_not == "one rank: nothing crosses a link");
  CHECK(fit->series[2].cls == kind(LinkKind::NET));
  CHECK(fit->held_out.size() == 1);
  // Groups that shared hosts while running are flagged in a note.
  series[2].shared_hosts = true;
  fit = calibrate(c, r, nccl_tuning_default(), calibration_default(), series, {});
  REQUIRE(fit.ok());
  REQUIRE_FALSE(fit->notes.empty());
  CHECK(fit->notes.front().find("shared NICs and switches") != std::string::npos);
}

TEST_CASE("calibrate: an nccl-tests run placed on the cluster by host name and device") {
  Cluster c = test::load_cluster("dgx-h100:2");
  NcclTestsRun run;
  run.source = "all_reduce_perf.log";
  run.line = 3;
  run.op = CollectiveOp::all_reduce;
  for (int i = 0; i < 4; ++i)
    run.ranks.push_back({i, 0, 100 + i, i < 2 ? "nodeA" : "nodeB", i % 2, "0000:18:00", "H100"});
  run.rows.push_back({});
  run.rows.back().bytes = 1e6;
  run.rows.back().time_us = 50;
  // The log's hosts are not the cluster's: --nodes says which.
  Result<CalibrationSeries> s = calibration_series(run, c, {});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error() ==
        "all_reduce_perf.log:3: host 'nodeA' is not in the cluster; give --nodes with the cluster's hosts for the "
        "log's, in "
        "order of first appearance");
  s = calibration_series(run, c, {"h002", "h001"});
  REQUIRE_MESSAGE(s.ok(), s.error());
  CHECK(s->gpus ==
        std::vector<VertexId>{c.hosts()[1].gpus[0], c.hosts()[1].gpus[1], c.hosts()[0].gpus[0], c.hosts()[0].gpus[1]});
  CHECK(s->points.size() == 1);
  CHECK(calibration_series(run, c, {"h001"}).error() == "all_reduce_perf.log:3: the log has 2 hosts, --nodes names 1");
  run.ranks[3].device = 9;
  CHECK(calibration_series(run, c, {"h001", "h002"}).error() ==
        "all_reduce_perf.log:3: rank 3 uses device 9; h002 has 8 GPUs");
  run.ranks[3].device = 0;
  CHECK(calibration_series(run, c, {"h001", "h002"}).error() ==
        "all_reduce_perf.log:3: two ranks on one GPU: cannot place the run on the cluster");
  run.ranks.pop_back();
  run.ranks[2].rank = 5;
  CHECK(calibration_series(run, c, {"h001", "h002"}).error().starts_with("all_reduce_perf.log:3: rank 5 of 3 listed"));
  // sendrecv: nccl-tests' ring, as the model's pair that crosses hosts.
  run.ranks[2].rank = 2;
  run.op = CollectiveOp::sendrecv;
  s = calibration_series(run, c, {"h001", "h002"});
  REQUIRE(s.ok());
  CHECK(s->gpus == std::vector<VertexId>{c.hosts()[0].gpus[1], c.hosts()[1].gpus[0]});
}

TEST_CASE("calibrate: nccl-tests logs as users have them") {
  const std::string logs = (test::source_dir() / "tests" / "validate" / "nccl-tests").string();
  // 8 H100 on one host, NVLS all-reduce: the NVLS class, near the default, the held-out sizes right.
  auto r = test::run_topoplan("calibrate --nccl-tests " + logs +
                              "/all_reduce_perf-8xh100.log --cluster dgx-h100:1 --nodes h001 --hold-out 64M,1G --json");
  REQUIRE_MESSAGE(r.exit_code == 0, (r.out + r.err));
  nlohmann::json j = nlohmann::json::parse(r.out);
  REQUIRE(j["classes"].size() == 1);
  CHECK(j["classes"][0]["class"] == "NVLS hopper");
  const double nvls = j["calibration"]["nvls_efficiency"]["hopper"].get<double>();
  CHECK(nvls > 0.6);
  CHECK(nvls < 1);
  for (const auto& h : j["held_out"]["sizes"]) CHECK(std::abs(h["median_error"].get<double>()) < 0.3);
  // Two A100 hosts that run all-gather at a ninth of what their eight NICs should give: the model
  // was channel-capped above that, the fit still finds the NICs slow and says to check the cluster.
  r = test::run_topoplan("calibrate --nccl-tests " + logs +
                         "/all_gather_perf-2node.log --cluster dgx-a100:2 --nodes h[001-002] --json");
  REQUIRE_MESSAGE(r.exit_code == 0, (r.out + r.err));
  j = nlohmann::json::parse(r.out);
  REQUIRE(j["classes"].size() == 1);
  CHECK(j["classes"][0]["class"] == "NET");
  CHECK(j["calibration"]["efficiency"]["NET"].get<double>() < 0.2);
  REQUIRE(j["notes"].size() == 1);
  CHECK(j["notes"][0].get<std::string>().starts_with("NET: the links gave "));
}

TEST_CASE("calibrate: bad input exits 2 with the reason") {
  using test::run_topoplan;
  auto refused = [](const std::string& args) {
    auto r = run_topoplan("calibrate " + args);
    CAPTURE(args);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    return r.err;
  };
  CHECK(refused("") == "topoplan: error: give either --measured RESULTS.json or --nccl-tests LOG...\n");
  CHECK(refused("--measured a.json --nccl-tests b.log") ==
        "topoplan: error: give either --measured RESULTS.json or --nccl-tests LOG...\n");
  CHECK(refused("--nccl-tests b.log") ==
        "topoplan: error: --nccl-tests: give --cluster, the cluster the logs ran on\n");
  CHECK(refused("--nccl-tests /nonexistent/b.log --cluster dgx-h100:1")
            .starts_with("topoplan: error: /nonexistent/b.log: cannot read"));
  CHECK(refused("--measured /nonexistent/r.json").starts_with("topoplan: error: /nonexistent/r.json: cannot read"));
  CHECK(refused("--nccl-tests b.log --cluster dgx-h100:1 --hold-out 3B") ==
        "topoplan: error: --hold-out: 3B is not a whole number of 4-byte elements (float32), at least 4 B\n");
  CHECK(refused("--nccl-tests b.log --cluster dgx-h100:1 --nodes 'h[2-1]'").starts_with("topoplan: error: --nodes: "));
  CHECK(
      refused("--nccl-tests b.log --cluster dgx-h100:1 --tolerance -1").starts_with("topoplan: error: --tolerance: "));
  // Results that do not name their plan.
  auto dir = test::temp_dir("calibrate-bad");
  const std::string results = (dir / "r.json").string();
  std::ofstream(results) << R"({"format": "topoplan-validate", "world": 8, "groups": []})";
  CHECK(refused("--measured " + results) ==
        "topoplan: error: " + results + ": plan: the results do not name their plan; give --plan\n");
  std::filesystem::remove_all(dir);
}

TEST_CASE("held_out_sizes and calibration_fit_to_json: per size the median error; the fit as a document") {
  CalibrationFit fit;
  fit.held_out = {{0, 1024, 10, 11}, {1, 1024, 10, 13}, {2, 1024, 10, 12}, {0, 4096, 20, 15}};
  const std::vector<HeldSize> held = held_out_sizes(fit);
  REQUIRE(held.size() == 2);
  CHECK(held[0].bytes == 1024);
  CHECK(held[0].series == 3);
  CHECK(held[0].median_error == doctest::Approx(0.2));
  CHECK(held[1].bytes == 4096);
  CHECK(held[1].median_error == doctest::Approx(-0.25));

  const std::vector<CalibrationSeries> series = {{"a", CollectiveOp::all_reduce, {}, {}, false},
                                                 {"b", CollectiveOp::all_gather, {}, {}, false},
                                                 {"c", CollectiveOp::sendrecv, {}, {}, false}};
  const nlohmann::json j = calibration_fit_to_json({"results.json"}, series, fit, held, 0.3, true, "");
  CHECK(j["format"] == "topoplan-calibrate");
  CHECK(j["sources"] == nlohmann::json::array({"results.json"}));
  CHECK(j["held_out"]["sizes"].size() == 2);
  CHECK(j["held_out"]["points"][0]["series"] == "a");
  CHECK(j["held_out"]["ok"] == false);
  CHECK(j["held_out"]["tolerance"] == 0.3);
  CHECK(j["written"].is_null());
  CHECK(calibration_fit_to_json({}, series, fit, held, 0.3, false, "cal.json")["written"] == "cal.json");
}

}  // namespace topoplan

#include "validate/compare.h"

#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support.h"
#include "validate/compare_json.h"
#include "validate/compare_text.h"

namespace topoplan {
namespace {

// tiny-8 (TP 2, PP 2, DP 2) on one host of lab-h100, default layout; a measurement of every group
// of every planned item, each taking `time_us(kind, index, row)`.
struct Case {
  Cluster c = test::load_cluster((test::data_dir() / "clusters" / "lab-h100.json").string());
  Router r{c};
  Job job = *job_load((test::data_dir() / "jobs" / "tiny-8.json").string());
  Layout layout = *layout_default(c, job_ranks(job));
};

Measured measure(const Case& k, double time_us, const std::string& backend = "nccl") {
  RankGroups groups = *RankGroups::make(job_parallel_sizes(k.job), k.job.parallel.order);
  Measured m{"results.json", backend, "plan.json", 8, {}};
  const std::pair<const char*, const char*> kinds[] = {{"tp", "tp"}, {"dp", "dp-cp"}, {"pp", "pp"}};
  const std::tuple<const char*, CollectiveOp, double> runs[] = {{"tp", CollectiveOp::all_gather, 262144},
                                                                {"dp", CollectiveOp::all_gather, 6815744},
                                                                {"pp", CollectiveOp::sendrecv, 131072}};
  for (const auto& [kind, token] : kinds) {
    const GroupList list = *groups.groups(token);
    for (size_t g = 0; g < list.size(); ++g)
      for (const auto& [rk, op, bytes] : runs)
        if (std::string(rk) == kind)
          m.results.push_back({kind, static_cast<int>(g), list[g], op, bytes, time_us, 1, 0});
  }
  return m;
}

}  // namespace

TEST_CASE("compare: measured as predicted passes; a slow group is flagged with the links it crosses") {
  Case k;
  Result<Comparison> first = compare_measured(k.c, k.r, k.job, k.layout, {}, measure(k, 1), 0.25);
  REQUIRE_MESSAGE(first.ok(), (first ? "" : first.error()));
  REQUIRE(first->rows.size() == 12);  // 4 TP, 4 DP and 4 PP groups
  Measured same = measure(k, 1);
  for (size_t i = 0; i < same.results.size(); ++i) {
    CHECK(first->rows[i].contended);  // planned sizes: timed with every group of the item
    CHECK(first->rows[i].predicted_us > 0);
    same.results[i].time_us = first->rows[i].predicted_us;
  }
  Result<Comparison> as_predicted = compare_measured(k.c, k.r, k.job, k.layout, {}, same, 0.25);
  CHECK(as_predicted->slow == 0);
  CHECK(as_predicted->suspects.empty());
  for (const CompareRow& row : as_predicted->rows) CHECK(row.ratio == doctest::Approx(1));
  // DP group 1 three times slower: flagged, and its links are the suspects.
  same.results[5].time_us *= 3;
  Result<Comparison> slow = compare_measured(k.c, k.r, k.job, k.layout, {}, same, 0.25);
  CHECK(slow->slow == 1);
  CHECK(slow->rows[5].slow);
  CHECK(slow->rows[5].ratio == doctest::Approx(3));
  REQUIRE_FALSE(slow->suspects.empty());
  CHECK(slow->suspects.front().slow_groups == 1);
  // Measured alone too (--alone): the slowdown of running together beside the model's.
  Measured alone = measure(k, 2);
  for (MeasuredResult& r : alone.results) r.alone_us = 1;
  // Kept: a loop over a temporary's member dangles.
  const Result<Comparison> together = compare_measured(k.c, k.r, k.job, k.layout, {}, alone, 0.25);
  for (const CompareRow& row : together->rows) {
    CHECK(row.measured_slowdown == 2);
    CHECK(row.predicted_slowdown >= 1);
  }
  // A size the plan does not issue is predicted for the group alone.
  Measured sweep = measure(k, 1);
  sweep.results[0].bytes = 1 << 20;
  CHECK_FALSE(compare_measured(k.c, k.r, k.job, k.layout, {}, sweep, 0.25)->rows[0].contended);
  // Results of another plan.
  Measured other = measure(k, 1);
  other.results[0].ranks = {0, 2};
  CHECK(compare_measured(k.c, k.r, k.job, k.layout, {}, other, 0.25).error() ==
        "results.json: tp group 0 does not hold the plan's ranks: the results come from another plan");
  other = measure(k, 1);
  other.world = 16;
  CHECK(compare_measured(k.c, k.r, k.job, k.layout, {}, other, 0.25).error() ==
        "results.json: 16 ranks, the plan places 8");
}

TEST_CASE("compare: a host-memory run checks values and groups, and is not timed against the GPU model") {
  Case k;
  CHECK(backend_in_host_memory("mpi"));
  CHECK_FALSE(backend_in_host_memory("nccl"));
  // 1000 times slower than the H100s it was planned for: CPUs and MPI, not NVLink.
  Measured host = measure(k, 1e6, "mpi");
  Result<Comparison> cmp = compare_measured(k.c, k.r, k.job, k.layout, {}, host, 0.25);
  REQUIRE_MESSAGE(cmp.ok(), (cmp ? "" : cmp.error()));
  CHECK_FALSE(cmp->timed);
  CHECK(cmp->rows.size() == 12);
  CHECK(cmp->slow == 0);
  CHECK(cmp->wrong == 0);
  CHECK(cmp->suspects.empty());
  for (const CompareRow& row : cmp->rows) {
    CHECK(row.predicted_us == 0);
    CHECK_FALSE(row.slow);
  }
  // Wrong values count in any run; group membership is checked as for a GPU run.
  host.results[3].wrong = 5;
  CHECK(compare_measured(k.c, k.r, k.job, k.layout, {}, host, 0.25)->wrong == 1);
  host.results[3].ranks = {0, 2};
  CHECK(compare_measured(k.c, k.r, k.job, k.layout, {}, host, 0.25)
            .error()
            .ends_with("the results come from another plan"));
  Measured gpu = measure(k, 1e6);
  gpu.results[0].wrong = 1;
  Result<Comparison> timed = compare_measured(k.c, k.r, k.job, k.layout, {}, gpu, 0.25);
  CHECK(timed->timed);
  CHECK(timed->slow == 12);
  CHECK(timed->wrong == 1);
}

TEST_CASE("compare: the command on a host-memory run says what it checked, exit 0; wrong values exit 1") {
  using topoplan::test::run_topoplan;
  const auto dir = topoplan::test::temp_dir("compare-host");
  const std::string cluster = (test::data_dir() / "clusters" / "lab-h100.json").string();
  auto plan =
      run_topoplan("plan --cluster " + cluster + " --job " + (test::data_dir() / "jobs" / "tiny-8.json").string() +
                   " --nodes h001 --emit json -o " + (dir / "plan").string());
  REQUIRE_MESSAGE(plan.exit_code == 0, plan.err);
  const std::string plan_file = (dir / "plan" / "plan.json").string();
  const nlohmann::json p = nlohmann::json::parse(test::read_file(plan_file));
  // Results as topoplan-validate --backend mpi writes them: the TP groups, far slower than NVLink.
  auto results = [&](const std::string& backend, long wrong) {
    nlohmann::json groups = nlohmann::json::array();
    for (size_t g = 0; g < p["groups"]["tp"].size(); ++g)
      groups.push_back({{"kind", "tp"},
                        {"index", g},
                        {"ranks", p["groups"]["tp"][g]},
                        {"results",
                         {{{"op", "all_gather"},
                           {"bytes", 262144},
                           {"time_us", 5000},
                           {"busbw_GBps", 0.03},
                           {"wrong", g == 1 ? wrong : 0}}}}});
    const std::string path = (dir / (backend + std::to_string(wrong) + ".json")).string();
    std::ofstream(path) << nlohmann::json{
        {"format", "topoplan-validate"},
        {"backend", backend},
        {"plan", plan_file},
        {"world", 8},
        {"groups", groups}}.dump();
    return path;
  };
  auto host = run_topoplan("compare --plan " + plan_file + " --measured " + results("mpi", 0));
  CHECK_MESSAGE(host.exit_code == 0, host.err);
  CHECK(host.out.find(": host-memory run: values checked, timing not compared with the GPU model (mpi backend: ") !=
        std::string::npos);
  CHECK(host.out.find("4 results, every group with the plan's ranks, values right\n") != std::string::npos);
  CHECK(host.out.find("SLOW") == std::string::npos);
  CHECK(host.out.find("suspects") == std::string::npos);
  CHECK(host.out.find("predicted") == std::string::npos);
  auto json = run_topoplan("compare --plan " + plan_file + " --measured " + results("mpi", 0) + " --json");
  REQUIRE(json.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  CHECK(j["timing_compared"] == false);
  CHECK(j["note"] == "host-memory run: values checked, timing not compared with the GPU model");
  CHECK(j["rows"][0]["predicted_us"].is_null());
  CHECK(j["rows"][0]["measured_us"] == 5000);
  CHECK(j["suspects"].empty());
  auto wrong = run_topoplan("compare --plan " + plan_file + " --measured " + results("mpi", 3));
  CHECK(wrong.exit_code == 1);
  CHECK(wrong.out.find("1 result with wrong values") != std::string::npos);
  CHECK(wrong.out.find("WRONG (3 values)") != std::string::npos);
  // The same times from the GPUs are slow, with the links the slow groups cross.
  auto gpu = run_topoplan("compare --plan " + plan_file + " --measured " + results("nccl", 0));
  CHECK(gpu.exit_code == 1);
  CHECK(gpu.out.find("4 groups slower than predicted") != std::string::npos);
  CHECK(gpu.out.find("SLOW") != std::string::npos);
}

TEST_CASE("compare: malformed results name the file and the field") {
  auto err = [](const nlohmann::json& j) {
    Result<Measured> m = measured_parse(j.dump(), "r.json");
    return m ? std::string() : m.error();
  };
  const nlohmann::json good = {
      {"format", "topoplan-validate"},
      {"backend", "mpi"},
      {"world", 2},
      {"groups",
       {{{"kind", "tp"},
         {"index", 0},
         {"ranks", {0, 1}},
         {"results", {{{"op", "all_gather"}, {"bytes", 1024}, {"time_us", 5.5}, {"wrong", 0}}}}}}}};
  Result<Measured> m = measured_parse(good.dump(), "r.json");
  REQUIRE(m.ok());
  CHECK(m->results.size() == 1);
  CHECK(m->results[0].time_us == 5.5);
  CHECK(err({{"format", "x"}}).starts_with("r.json: expected topoplan-validate's results"));
  CHECK(measured_parse("[", "r.json").error().starts_with("r.json:1:"));
  nlohmann::json j = good;
  j["world"] = 0;
  CHECK(err(j) == "r.json: world: expected the number of ranks");
  j = good;
  j["groups"][0]["kind"] = "tq";
  CHECK(err(j) ==
        "r.json: groups[0].kind: expected a group kind (tp, cp, dp, pp, ep, etp, edp) or world (--nccl-tests on every "
        "rank)");
  j = good;
  j["groups"][0]["ranks"] = {0, 2};
  CHECK(err(j) == "r.json: groups[0].ranks: rank 2 is outside the world of 2");
  j = good;
  j["groups"][0]["results"][0]["time_us"] = -1;
  CHECK(err(j) == "r.json: groups[0].results[0].time_us: expected a number above 0, got -1");
  j = good;
  j["groups"][0]["results"][0]["op"] = "gather";
  CHECK(err(j).starts_with("r.json: groups[0].results[0].op: expected a collective"));
  CHECK(measured_read("/nonexistent/r.json").error().starts_with("/nonexistent/r.json: cannot read"));
  // Fields of another type are refused or left out, never thrown (found by fuzz/measured).
  j = good;
  j["format"] = nlohmann::json::array();
  CHECK(err(j).starts_with("r.json: expected topoplan-validate's results"));
  j = good;
  j["backend"] = 5;
  j["groups"][0]["results"][0]["wrong"] = "none";
  CHECK(err(j).empty());
}

TEST_CASE("compare: bad input exits 2 with the reason") {
  using topoplan::test::run_topoplan;
  auto missing = run_topoplan("compare --plan /nonexistent/plan.json --measured /nonexistent/r.json");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.starts_with("topoplan: error: /nonexistent/plan.json: cannot read"));
  const std::string job = (topoplan::test::data_dir() / "jobs" / "tiny-8.json").string();
  auto not_plan = run_topoplan("compare --plan " + job + " --measured /nonexistent/r.json");
  CHECK(not_plan.exit_code == 2);
  CHECK(not_plan.err.find("expected a plan file") != std::string::npos);
  auto threshold = run_topoplan("compare --plan " + job + " --measured x --threshold -1");
  CHECK(threshold.exit_code == 2);
}

TEST_CASE("comparison_to_json: rows beside predictions, a host-memory run untimed and said so") {
  Case k;
  Measured m = measure(k, 1);
  Result<Comparison> timed = compare_measured(k.c, k.r, k.job, k.layout, {}, m, 0.25);
  REQUIRE(timed.ok());
  const nlohmann::json j = comparison_to_json(k.c, "plan.json", "results.json", m, *timed);
  CHECK(j["plan"] == "plan.json");
  CHECK(j["measured"] == "results.json");
  CHECK(j["timing_compared"] == true);
  CHECK(j["note"].is_null());
  REQUIRE(j["rows"].size() == timed->rows.size());
  CHECK(j["rows"][0]["predicted_us"].get<double>() == doctest::Approx(timed->rows[0].predicted_us));
  CHECK(j["slow_groups"] == timed->slow);

  Measured host = measure(k, 1, "mpi");
  Result<Comparison> untimed = compare_measured(k.c, k.r, k.job, k.layout, {}, host, 0.25);
  REQUIRE(untimed.ok());
  const nlohmann::json h = comparison_to_json(k.c, "plan.json", "results.json", host, *untimed);
  CHECK(h["timing_compared"] == false);
  CHECK(h["note"] == kCompareHostMemoryNote);
  CHECK(h["rows"][0]["predicted_us"].is_null());
}

TEST_CASE("comparison_text: the verdict, a row per result, the suspects; a host-memory run untimed and said so") {
  Case k;
  Measured m = measure(k, 1);
  m.results[5].time_us = 1e6;
  m.results[6].wrong = 2;
  Result<Comparison> timed = compare_measured(k.c, k.r, k.job, k.layout, {}, m, 0.25);
  REQUIRE(timed.ok());
  const std::string t = comparison_text(k.c, "plan.json", "results.json", m, *timed);
  CHECK(t.starts_with("results.json beside plan.json: 12 results, "));
  CHECK(t.find(" slower than predicted by more than 25%, 1 result with wrong values\n\n") != std::string::npos);
  CHECK(t.find("  kind  group  op ") != std::string::npos);
  CHECK(t.find("WRONG (2 values)") != std::string::npos);
  CHECK(t.find("SLOW (bound by ") != std::string::npos);
  CHECK(t.find("\nsuspects (links the slow groups cross):\n") != std::string::npos);

  Measured host = measure(k, 1, "mpi");
  Result<Comparison> untimed = compare_measured(k.c, k.r, k.job, k.layout, {}, host, 0.25);
  REQUIRE(untimed.ok());
  const std::string h = comparison_text(k.c, "plan.json", "results.json", host, *untimed);
  CHECK(h.starts_with(std::string("results.json beside plan.json: ") + kCompareHostMemoryNote + " (mpi backend: "));
  CHECK(h.find("12 results, every group with the plan's ranks, values right\n") != std::string::npos);
  CHECK(h.find("predicted") == std::string::npos);
  CHECK(h.ends_with("\n(for the GPUs' timing, run topoplan-validate with --backend nccl)\n"));
}

}  // namespace topoplan

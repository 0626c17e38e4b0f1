#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "tests/support.h"

using topoplan::test::run_topoplan;

namespace {

double seconds(const std::string& args) {
  auto r = run_topoplan("transfer " + args + " --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return nlohmann::json::parse(r.out)["seconds"].get<double>();
}

}  // namespace

TEST_CASE("transfer: the facility-transfer table (100 TB)") {
  CHECK(seconds("--size 100TB --rate 100Gbps") == doctest::Approx(8000));                    // 2 h 13 min 20 s
  CHECK(seconds("--size 100TB --rate 400Gbps") == doctest::Approx(2000));                    // 33 min 20 s
  CHECK(seconds("--size 100TB --rate 800Gbps") == doctest::Approx(1000));                    // 16 min 40 s
  CHECK(seconds("--size 100TB --rate 1.6Tbps") == doctest::Approx(500));                     // 8 min 20 s
  CHECK(seconds("--size 100TB --rate 100Gbps --efficiency 0.8") == doctest::Approx(10000));  // ~2 h 47 min
  auto text = run_topoplan("transfer --size 100TB --rate 100Gbps");
  CHECK(text.out.find("2 h 13 min 20 s") != std::string::npos);
  auto r = run_topoplan("transfer --size 100TB --rate 100Gbps --deadline 1h --json");
  REQUIRE(r.exit_code == 0);
  CHECK(nlohmann::json::parse(r.out)["required_gbit_s"].get<double>() == doctest::Approx(222.22).epsilon(1e-3));
}

TEST_CASE("transfer: under a microsecond in ns or ps, not 0 us") {
  auto r = run_topoplan("transfer --size 1B --rate 100Gbps");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out == "1 B at 100 Gbps: 80 ps\n");
  r = run_topoplan("transfer --size 1KB --rate 100Gbps");
  CHECK(r.out == "1 KB at 100 Gbps: 80 ns\n");
}

TEST_CASE("transfer: a size in bits says sizes are bytes and what the bits are, exit 2") {
  for (const char* args : {"--size 100Tb --rate 100Gbps", "--size 100Tb"}) {
    auto r = run_topoplan(std::string("transfer ") + args);
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(
        r.err.find("--size: invalid size '100Tb': sizes are in bytes and 'Tb' is terabits: 100 Tb is 12.5 TB") !=
            std::string::npos,
        r.err);
    CHECK(r.err.find("did you mean") == std::string::npos);
  }
}

TEST_CASE("transfer: between two sites of a cluster, with propagation") {
  auto r = run_topoplan("transfer --size 100TB --cluster " +
                        (topoplan::test::data_dir() / "clusters/two-site-h100.json").string() +
                        " --from siteA --to siteB --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["rate_gbit_s"].get<double>() == doctest::Approx(3200));
  CHECK(j["propagation_s"].get<double>() == doctest::Approx(100 * 4.9e-6));
  CHECK(j["seconds"].get<double>() == doctest::Approx(250 + 100 * 4.9e-6));
}

TEST_CASE("transfer: bad input exits 2 with the field named") {
  auto r = run_topoplan("transfer --size 12XB --rate 100Gbps");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--size: invalid size '12XB'") != std::string::npos);
  r = run_topoplan("transfer --size 1TB --rate 100");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--rate") != std::string::npos);
  r = run_topoplan("transfer --size 1TB");
  CHECK(r.exit_code == 2);
  r = run_topoplan("transfer --size 1TB --rate 1Gbps --efficiency 1.5");
  CHECK(r.exit_code == 2);
  r = run_topoplan("transfer --size 1TB --rate 1Gbps --deadline soon");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--deadline") != std::string::npos);
  r = run_topoplan("transfer --size 1TB --cluster dgx-h100:2 --from site0 --to siteX");
  CHECK(r.exit_code == 2);
}

namespace {

// llama3-70b on two-site-h100 with its hosts alternating between the sites, so every
// data-parallel group crosses the DCI (the default layout keeps the job in siteA).
std::string interleaved_layout() {
  const std::filesystem::path dir = topoplan::test::temp_dir("transfer_job");
  std::ofstream f(dir / "interleaved.txt");
  for (int i = 1; i <= 8; ++i) {
    char a[16], b[16];
    std::snprintf(a, sizeof a, "h%03d", i);
    std::snprintf(b, sizeof b, "h%03d", i + 64);
    f << a << " slots=8\n" << b << " slots=8\n";
  }
  return (dir / "interleaved.txt").string();
}

nlohmann::json beside_job(const std::string& args) {
  const std::string cmd = "transfer --size 100TB --cluster " +
                          (topoplan::test::data_dir() / "clusters/two-site-h100.json").string() +
                          " --from siteA --to siteB --job " +
                          (topoplan::test::data_dir() / "jobs/llama3-70b.json").string() + " " + args + " --json";
  auto r = run_topoplan(cmd);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("transfer: beside a job that stays in one site, the DCI is the transfer's") {
  const nlohmann::json j = beside_job("--fabric idle");
  for (const auto& d : j["directions"]) {
    CHECK(d["job_bytes_per_step"].get<double>() == 0);
    CHECK(d["spare_avg_gbit_s"].get<double>() == doctest::Approx(3200));
    CHECK(d["job_peak_phase"].is_null());
  }
  CHECK(j["on_spare"]["seconds"].get<double>() == doctest::Approx(250 + 100 * 4.9e-6));
  CHECK(j["taking_share"]["job_slowdown"].get<double>() == doctest::Approx(1));
}

TEST_CASE("transfer: beside a job whose data parallelism crosses the sites") {
  const std::string layout = interleaved_layout();
  const nlohmann::json j = beside_job("--layout " + layout + " --fabric idle");
  const auto& ab = j["directions"][0];
  REQUIRE(ab["from"] == "siteA");
  // The job's DCI bytes are score's, link by link (--links: every loaded link, both directions).
  const std::filesystem::path csv = topoplan::test::temp_dir("transfer_job_links") / "links.csv";
  auto s = run_topoplan("score --cluster " + (topoplan::test::data_dir() / "clusters/two-site-h100.json").string() +
                        " --job " + (topoplan::test::data_dir() / "jobs/llama3-70b.json").string() + " --layout " +
                        layout + " --fabric idle --links " + csv.string() + " --json");
  REQUIRE(s.exit_code == 0);
  const nlohmann::json score = nlohmann::json::parse(s.out);
  double dci_bytes = 0;
  std::istringstream rows(topoplan::test::read_file(csv));
  for (std::string row; std::getline(rows, row);) {
    // link,from,to,kind,tier,bw_GBps,bytes_forward,bytes_reverse,...
    std::vector<std::string> f;
    std::istringstream cells(row);
    for (std::string cell; std::getline(cells, cell, ',');) f.push_back(cell);
    if (f.size() < 8 || f[3] != "DCI") continue;
    dci_bytes += std::stod(f[1].rfind("siteA/", 0) == 0 ? f[6] : f[7]);
  }
  CHECK(dci_bytes > 0);
  CHECK(ab["job_bytes_per_step"].get<double>() == doctest::Approx(dci_bytes));
  const double step_s = j["job"]["step_s"].get<double>();
  CHECK(step_s == doctest::Approx(score["step_s"].get<double>()));
  CHECK(ab["job_avg_gbit_s"].get<double>() == doctest::Approx(dci_bytes * 8 / step_s / 1e9));
  // Its busiest phase sends faster than its average, and leaves less.
  CHECK(ab["job_peak_gbit_s"].get<double>() > ab["job_avg_gbit_s"].get<double>());
  CHECK(ab["spare_peak_gbit_s"].get<double>() < ab["spare_avg_gbit_s"].get<double>());
  const double spare_gbit_s = 3200 - ab["job_avg_gbit_s"].get<double>();
  CHECK(j["on_spare"]["seconds"].get<double>() == doctest::Approx(100e12 * 8 / (spare_gbit_s * 1e9) + 100 * 4.9e-6));
  // Taking half of each link slows the job; the transfer, greedy, is done sooner; a larger share
  // slows the job more.
  const double half = j["taking_share"]["job_slowdown"].get<double>();
  CHECK(half > 1);
  CHECK(j["taking_share"]["seconds"].get<double>() < j["on_spare"]["seconds"].get<double>());
  CHECK(j["taking_share"]["job_time_lost_s"].get<double>() > 0);
  const nlohmann::json more = beside_job("--layout " + layout + " --fabric idle --share 0.8");
  CHECK(more["taking_share"]["job_slowdown"].get<double>() > half);
}

TEST_CASE("transfer: other traffic on the DCI (--background) and a recurring checkpoint (--every)") {
  const std::filesystem::path dir = topoplan::test::temp_dir("transfer_background");
  std::ofstream(dir / "bg.json") << R"({"format": "topoplan-background", "tiers": {"dci": 0.25}})";
  const nlohmann::json j = beside_job("--fabric idle --background " + (dir / "bg.json").string() + " --every 10min");
  const auto& ab = j["directions"][0];
  CHECK(ab["background_gbit_s"].get<double>() == doctest::Approx(800));
  CHECK(ab["spare_avg_gbit_s"].get<double>() == doctest::Approx(2400));
  CHECK(j["on_spare"]["seconds"].get<double>() == doctest::Approx(100e12 * 8 / 2400e9 + 100 * 4.9e-6));
  // 100 TB every 10 min needs 1333 Gbps of the 3.2 Tbps: 41.7%, and 333 s at 2.4 Tbps is done in time.
  CHECK(j["every"]["share_of_capacity"].get<double>() == doctest::Approx(100e12 * 8 / 600 / 3200e9));
  CHECK(j["every"]["finishes_on_spare"] == true);
  const nlohmann::json tight = beside_job("--fabric idle --background " + (dir / "bg.json").string() + " --every 5min");
  CHECK(tight["every"]["finishes_on_spare"] == false);
}

TEST_CASE("transfer: a job without the sites, or with options that do not fit, exits 2") {
  const std::string job = (topoplan::test::data_dir() / "jobs/llama3-70b.json").string();
  const std::string two_site = (topoplan::test::data_dir() / "clusters/two-site-h100.json").string();
  auto r = run_topoplan("transfer --size 1TB --job " + job);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--job needs --cluster") != std::string::npos);
  r = run_topoplan("transfer --size 1TB --job " + job + " --cluster " + two_site +
                   " --from siteA --to siteB --share 1");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--share") != std::string::npos);
  r = run_topoplan("transfer --size 1TB --job " + job + " --cluster " + two_site + " --from siteA --to siteC");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("did you mean 'siteA'") != std::string::npos);
  r = run_topoplan("transfer --size 1TB --job " + job + " --cluster " + two_site +
                   " --from siteA --to siteB --rate 1Gbps");
  CHECK(r.exit_code == 2);
  r = run_topoplan("transfer --size 1TB --rate 1Gbps --layout x.txt");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--layout needs --job") != std::string::npos);
  r = run_topoplan("transfer --size 1TB --rate 1Gbps --every 0s");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--every") != std::string::npos);
}

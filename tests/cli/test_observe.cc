#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/support.h"

using topoplan::test::run_topoplan;

namespace {

const std::string kJob = (topoplan::test::data_dir() / "jobs/llama3-70b.json").string();
const std::string kCluster = "dgx-h100:32";

// The model's bytes per step on each loaded link ("a -> b" both ways) and its step, from score.
struct Predicted {
  std::map<std::string, double> bytes;
  double step_s = 0;
};
Predicted predicted(const std::filesystem::path& dir) {
  const auto csv = dir / "links.csv";
  auto r = run_topoplan("score --cluster " + kCluster + " --job " + kJob + " --links " + csv.string() + " --json");
  REQUIRE(r.exit_code == 0);
  Predicted p;
  p.step_s = nlohmann::json::parse(r.out)["step_s"].get<double>();
  std::istringstream rows(topoplan::test::read_file(csv));
  for (std::string row; std::getline(rows, row);) {
    std::vector<std::string> f;
    std::istringstream cells(row);
    for (std::string cell; std::getline(cells, cell, ',');) f.push_back(cell);
    if (f.size() < 8 || f[0] == "link") continue;
    p.bytes[f[1] + " -> " + f[2]] = std::stod(f[6]);
    p.bytes[f[2] + " -> " + f[1]] = std::stod(f[7]);
  }
  return p;
}

}  // namespace

TEST_CASE("observe: counters beside the predicted load, flagged links with their groups") {
  const auto dir = topoplan::test::temp_dir("cli_observe");
  const Predicted p = predicted(dir);
  const double window_s = 60;
  auto at_rate = [&](const std::string& link, double scale) {
    return std::to_string(static_cast<long long>(p.bytes.at(link) / p.step_s * window_s * scale));
  };
  REQUIRE(p.bytes.count("h001/nic0 -> leaf0"));
  REQUIRE(p.bytes.at("h001/nic0 -> leaf0") > 0);
  std::ofstream(dir / "counters.csv") << "link,window_s,tx_bytes,rx_bytes,discards\n"
                                      << "h001/nic0 -> leaf0,60," << at_rate("h001/nic0 -> leaf0", 1) << ","
                                      << at_rate("leaf0 -> h001/nic0", 1) << ",0\n"
                                      << "h002/nic0 -> leaf0,60," << at_rate("h002/nic0 -> leaf0", 5) << ","
                                      << at_rate("leaf0 -> h002/nic0", 1) << ",0\n"
                                      << "h020/nic0,60,600000000000,0,0\n"
                                      << "lid 7 port 1,60,1000,1000,0\n";
  const std::string counters = (dir / "counters.csv").string();
  auto r = run_topoplan("observe --cluster " + kCluster + " --job " + kJob + " --counters " + counters + " --json");
  CHECK(r.exit_code == 1);  // flagged
  nlohmann::json j = nlohmann::json::parse(r.out);
  std::map<std::string, nlohmann::json> by_link;
  for (const auto& l : j["links"]) by_link[l["link"].get<std::string>()] = l;
  REQUIRE(by_link.size() == 6);
  CHECK(by_link["h001/nic0 -> leaf0"]["ratio"].get<double>() == doctest::Approx(1).epsilon(0.01));
  CHECK(by_link["h001/nic0 -> leaf0"]["verdicts"].empty());
  CHECK(by_link["leaf0 -> h001/nic0"]["verdicts"].empty());
  const auto& hot = by_link["h002/nic0 -> leaf0"];
  CHECK(hot["ratio"].get<double>() == doctest::Approx(5).epsilon(0.01));
  CHECK(hot["verdicts"] == nlohmann::json::array({"above_prediction"}));
  // The groups the model puts on it, named as explain --group takes them.
  REQUIRE_FALSE(hot["groups"].empty());
  CHECK(hot["groups"][0]["group"].is_string());
  const auto& idle = by_link["h020/nic0 -> leaf0"];
  CHECK(idle["predicted_gbit_s"].get<double>() == 0);
  CHECK(idle["verdicts"] == nlohmann::json::array({"busy_not_predicted"}));
  REQUIRE(j["unmatched"].size() == 1);
  CHECK(j["unmatched"][0]["counter"] == "lid 7 port 1");
  CHECK(j["note"].get<std::string>().find("not why") != std::string::npos);

  // A port map names the LID's port; the text shows the flags and says what they are not.
  std::ofstream(dir / "ports.csv") << "counter,port\nlid 7 port 1,h003/nic0\n";
  const auto dot = dir / "observed.dot";
  r = run_topoplan("observe --cluster " + kCluster + " --job " + kJob + " --counters " + counters + " --port-map " +
                   (dir / "ports.csv").string() + " --dot " + dot.string());
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("[above_prediction] h002/nic0 -> leaf0 (h002/nic0 -> leaf0)") != std::string::npos);
  CHECK(r.out.find("[busy_not_predicted] h020/nic0 -> leaf0") != std::string::npos);
  CHECK(r.out.find("counters that name no link") == std::string::npos);
  CHECK(r.out.find("not why") != std::string::npos);
  const auto html = dir / "observed.html";
  r = run_topoplan("observe --cluster " + kCluster + " --job " + kJob + " --counters " + counters + " --html " +
                   html.string());
  CHECK(r.exit_code == 1);
  const std::string page = topoplan::test::read_file(html);
  CHECK(page.find("\"observed\":{\"edge\":[") != std::string::npos);
  CHECK(page.find("[above_prediction] h002/nic0 -&gt; leaf0") != std::string::npos);
  const std::string drawn = topoplan::test::read_file(dot);
  CHECK(drawn.find("observed / predicted") != std::string::npos);
  CHECK(drawn.find("busy, none predicted") != std::string::npos);
  // Only the link as predicted: nothing flagged.
  std::ofstream(dir / "ok.csv") << "link,window_s,tx_bytes,rx_bytes\n"
                                << "h001/nic0 -> leaf0,60," << at_rate("h001/nic0 -> leaf0", 1.2) << ","
                                << at_rate("leaf0 -> h001/nic0", 0.9) << "\n";
  r = run_topoplan("observe --cluster " + kCluster + " --job " + kJob + " --counters " + (dir / "ok.csv").string());
  CHECK(r.exit_code == 0);
  // A measured step twice the model's halves the prediction: the same counters are now twice it.
  r = run_topoplan("observe --cluster " + kCluster + " --job " + kJob + " --counters " + (dir / "ok.csv").string() +
                   " --step-s " + std::to_string(p.step_s * 2) + " --tolerance 1.5 --json");
  CHECK(r.exit_code == 1);
  j = nlohmann::json::parse(r.out);
  CHECK(j["step_measured"] == true);
  CHECK(j["links"][0]["ratio"].get<double>() == doctest::Approx(2.4).epsilon(0.01));
}

TEST_CASE("observe: bad input exits 2 and names it") {
  const auto dir = topoplan::test::temp_dir("cli_observe_bad");
  const std::string base = "observe --cluster " + kCluster + " --job " + kJob;
  auto r = run_topoplan(base + " --counters " + (dir / "none.csv").string());
  CHECK(r.exit_code == 2);
  std::ofstream(dir / "zero.csv") << "link,window_s,tx_bytes\nh001/nic0,0,100\n";
  r = run_topoplan(base + " --counters " + (dir / "zero.csv").string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("zero.csv:2") != std::string::npos);
  std::ofstream(dir / "unknown.csv") << "link,window_s,tx_bytes\nlid 1 port 1,10,100\n";
  r = run_topoplan(base + " --counters " + (dir / "unknown.csv").string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("no counter names a link of the cluster") != std::string::npos);
  std::ofstream(dir / "ok.csv") << "link,window_s,tx_bytes\nh001/nic0,10,100\n";
  r = run_topoplan(base + " --counters " + (dir / "ok.csv").string() + " --tolerance 1");
  CHECK(r.exit_code == 2);
  r = run_topoplan(base + " --counters " + (dir / "ok.csv").string() + " --step-s 0");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--step-s: invalid duration '0s': must be > 0") != std::string::npos);
  r = run_topoplan(base + " --counters " + (dir / "ok.csv").string() + " --port-map " + (dir / "none.csv").string());
  CHECK(r.exit_code == 2);
  // Two perfquery samples without times need --interval.
  const std::string sample =
      "# Port extended counters: Lid 12 port 1 (CapMask: "
      "0x5A00)\nPortXmitData:....................1000\nPortRcvData:.....................1000\n";
  std::ofstream(dir / "a.txt") << sample;
  std::ofstream(dir / "b.txt") << sample;
  r = run_topoplan(base + " --counters " + (dir / "a.txt").string() + " " + (dir / "b.txt").string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("interval") != std::string::npos);
}

// --html on score, review, plan and explain: one page each, with the layouts the command scored and
// what it opens on; a file that cannot be written is an error.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/support.h"

namespace {

using topoplan::test::run_topoplan;

const std::string kCluster = "data/clusters/pods-16-h100.json", kJob = "data/jobs/llama3-70b.json";

// The topoplan-report document inside a page.
nlohmann::json page_data(const std::filesystem::path& path) {
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  const std::string page = text.str();
  const std::string open = "<script type=\"application/json\" id=\"topoplan-data\">";
  const size_t at = page.find(open);
  REQUIRE(at != std::string::npos);
  const size_t end = page.find("</script>", at);
  return nlohmann::json::parse(page.substr(at + open.size(), end - at - open.size()));
}

std::string run_in_source(const std::string& args) {
  auto r = run_topoplan(args, topoplan::test::source_dir());
  INFO(args);
  CHECK_MESSAGE(r.exit_code <= 1, r.err);
  return r.out;
}

}  // namespace

TEST_CASE("html: score, review, plan and explain write their page") {
  const auto dir = topoplan::test::temp_dir("html");
  const std::string base = "--cluster " + kCluster + " --job " + kJob;

  const std::string printed = run_in_source("score " + base + " --html " + (dir / "score.html").string());
  const nlohmann::json score = page_data(dir / "score.html");
  CHECK(score["text"] == printed);  // the page's text is the command's
  CHECK(score["layouts"].size() == 1);
  CHECK(score["layouts"][0]["groups"]["tp"].size() == 16);
  // The tables hold the printed cells: a header and five kinds, every collective, 30 hot links.
  const nlohmann::json& tables = score["layouts"][0]["tables"];
  CHECK(tables["kinds"].size() == 6);
  CHECK(tables["links"].size() == 31);
  REQUIRE(!tables["items"].empty());
  REQUIRE(tables["memory"].size() >= 2);  // a header and the stages
  for (const auto& row : {tables["kinds"][1], tables["items"][0], tables["links"][1], tables["memory"][1]})
    for (const auto& cell : row) CHECK_MESSAGE(printed.find(cell.get<std::string>()) != std::string::npos, cell);
  for (const auto& f : tables["findings"]) CHECK(printed.find(f[1].get<std::string>()) != std::string::npos);

  {  // the pods interleaved: one host of each in turn
    std::ofstream hosts(dir / "hosts.txt");
    for (int k = 0; k < 4; ++k)
      for (int pod = 0; pod < 4; ++pod)
        hosts << "h0" << (pod * 4 + k + 1 < 10 ? "0" : "") << pod * 4 + k + 1 << " slots=8\n";
  }
  run_in_source("review " + base + " --layout " + (dir / "hosts.txt").string() + " --html " +
                (dir / "review.html").string());
  const nlohmann::json review = page_data(dir / "review.html");
  REQUIRE(review["layouts"].size() == 2);  // the layout and the planner's, side by side
  CHECK(review["layouts"][0]["exposed_s"].get<double>() > review["layouts"][1]["exposed_s"].get<double>());

  run_in_source("plan " + base + " --html " + (dir / "plan.html").string());
  const nlohmann::json plan = page_data(dir / "plan.html");
  REQUIRE(plan["layouts"].size() == 2);  // the input order beside the plan
  CHECK(plan["layouts"][0]["label"].get<std::string>().starts_with("input order (hosts as offered"));
  CHECK(plan["layouts"][1]["label"].get<std::string>().starts_with("plan (order "));
  CHECK(plan["layouts"][1]["exposed_s"].get<double>() <= plan["layouts"][0]["exposed_s"].get<double>());

  run_in_source("explain " + base + " --group dp:3 --html " + (dir / "group.html").string());
  CHECK(page_data(dir / "group.html")["open"]["group"] == nlohmann::json{{"kind", "dp"}, {"index", 3}});
  run_in_source("explain " + base + " --link 'spine0 -> core0' --json --html " + (dir / "link.html").string());
  const nlohmann::json link = page_data(dir / "link.html");
  const int l = link["open"]["link"];
  CHECK(link["devices"]["name"][link["links"]["a"][l].get<size_t>()] == "spine0");
  CHECK(link["devices"]["name"][link["links"]["b"][l].get<size_t>()] == "core0");

  auto bad = run_topoplan("score " + base + " --html " + (dir / "no" / "such" / "dir.html").string(),
                          topoplan::test::source_dir());
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("dir.html") != std::string::npos);
}

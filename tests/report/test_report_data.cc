// The HTML report's document and page: every device and link once, the job's load on each
// direction, the groups as the score placed them, and a page that no data can break out of.
#include "planner/report_data.h"

#include <doctest/doctest.h>

#include "planner/html_report.h"
#include "tests/scored_small_job.h"
#include "tests/support.h"

namespace topoplan {

TEST_CASE("report data: devices, links, load and groups as scored") {
  const auto scored = test::scored_small_job("dgx-h100:2");  // tp 2, pp 2, dp 2 on 8 GPUs
  const Cluster& c = scored->cluster;
  const Job& job = scored->job;
  const JobScore* s = &scored->score;
  Result<nlohmann::json> r =
      report_data(c, {{"layout default", &job, &*s}}, "small on dgx-h100:2", "the text", {"dp", 1, std::nullopt});
  REQUIRE_MESSAGE(r.ok(), r.error());
  const nlohmann::json& d = *r;
  CHECK(d["format"] == "topoplan-report");
  CHECK(d["devices"]["name"].size() == c.num_devices());
  CHECK(d["links"]["a"].size() == c.num_edges() / 2);
  CHECK(d["hosts"] == nlohmann::json{"h001", "h002"});
  const nlohmann::json& lay = d["layouts"][0];
  CHECK(lay["exposed_s"].get<double>() == doctest::Approx(s->exposed_comm_s));
  // Every loaded direction once, as the score has it.
  REQUIRE(lay["load"]["edge"].size() == s->links.size());
  for (size_t i = 0; i < s->links.size(); ++i) {
    CHECK(lay["load"]["edge"][i] == s->links[i].edge);
    CHECK(lay["load"]["avg"][i].get<double>() == doctest::Approx(s->links[i].utilization).epsilon(0.01));
    CHECK(lay["load"]["avg"][i].get<double>() <= lay["load"]["peak"][i].get<double>());
  }
  // Groups as GPU devices in Megatron's order: TP pairs of consecutive ranks, DP across them.
  REQUIRE(lay["groups"]["tp"].size() == 4);
  CHECK(lay["groups"]["tp"][1] == nlohmann::json{s->gpu_of_rank[2], s->gpu_of_rank[3]});
  CHECK(lay["groups"]["dp"][0] == nlohmann::json{s->gpu_of_rank[0], s->gpu_of_rank[2]});
  CHECK(lay["groups"]["pp"][0] == nlohmann::json{s->gpu_of_rank[0], s->gpu_of_rank[4]});
  CHECK_FALSE(lay["groups"].contains("cp"));  // groups of one rank are left out
  CHECK(d["open"]["group"] == nlohmann::json{{"kind", "dp"}, {"index", 1}});
}

TEST_CASE("report page: data and text cannot end the script or inject markup") {
  const nlohmann::json data = {{"title", "a <b>bold</b> & \"quoted\" job"},
                               {"text", "</pre><script>alert(1)</script>"},
                               {"hosts", {"</script><img src=x>"}}};
  const std::string page = html_report(data);
  CHECK(page.find("<title>a &lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot; job</title>") != std::string::npos);
  CHECK(page.find("&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
  // The data's own "</script>" is written "<\/script>", so the data block ends where it should.
  const size_t data_at = page.find("id=\"topoplan-data\">");
  REQUIRE(data_at != std::string::npos);
  const size_t end = page.find("</script>", data_at);
  const nlohmann::json back = nlohmann::json::parse(page.substr(data_at + 19, end - data_at - 19));
  CHECK(back == data);
  // Style and script are inline: nothing to fetch when the page opens.
  CHECK(page.find("src=\"http") == std::string::npos);
  CHECK(page.find("<link") == std::string::npos);
  CHECK(page.find("window.topoplanReport") != std::string::npos);
}

}  // namespace topoplan

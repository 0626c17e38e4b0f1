#include "observe/observe_job.h"

#include <doctest/doctest.h>

#include "observe/observe_job_json.h"
#include "tests/support.h"
#include "topology/formats/dot.h"

using namespace topoplan;

namespace {

std::unique_ptr<JobInputs> tiny_on_two_nodes() {
  Result<std::unique_ptr<JobInputs>> in =
      job_inputs_load("dgx-h100:2", (test::data_dir() / "jobs" / "tiny-8.json").string(), "", {});
  REQUIRE_MESSAGE(in.ok(), (in ? "" : in.error()));
  return std::move(*in);
}

PortRate rate(const std::string& key, double tx_GBps) {
  PortRate r;
  r.key = key;
  r.window_s = 60;
  r.tx_Bps = tx_GBps * 1e9;
  r.rx_Bps = 0;
  return r;
}

}  // namespace

TEST_CASE("port_match: counters that name no link are kept aside, and none at all is an error") {
  const Cluster c = test::load_cluster("dgx-h100:2");
  Result<PortMatch> m = port_match(c, {rate("h001/nic0", 1), rate("nowhere", 1)}, nullptr);
  REQUIRE(m.ok());
  REQUIRE(m->rates.size() == 1);
  CHECK(m->ports.size() == 1);
  CHECK(m->rates[0].key == "h001/nic0");
  REQUIRE(m->unmatched.size() == 1);
  CHECK(m->unmatched[0].counter == "nowhere");
  Result<PortMatch> none = port_match(c, {rate("nowhere", 1)}, nullptr);
  REQUIRE(!none.ok());
  CHECK(none.error().find("no counter names a link of the cluster") == 0);
  CHECK(none.error().find("--port-map") != std::string::npos);
}

TEST_CASE("observe_job: a busy port the job leaves idle is flagged; the model's step unless measured") {
  std::unique_ptr<JobInputs> in = tiny_on_two_nodes();
  Result<PortMatch> m = port_match(in->cluster, {rate("h001/nic0", 30)}, nullptr);
  REQUIRE(m.ok());
  Result<ObserveJob> r = observe_job(*in, std::move(*m), {});
  REQUIRE_MESSAGE(r.ok(), (r ? "" : r.error()));
  CHECK(r->ports == 1);
  CHECK(r->rows.size() == 2);  // both directions of the port
  CHECK(!r->step_measured);
  CHECK(r->options.step_s == r->score.step_s);
  CHECK(r->options.model_step_s == r->score.step_s);
  CHECK(r->flagged());
  const std::vector<double> ratios = observed_ratios(in->cluster, r->rows);
  CHECK(ratios.size() == in->cluster.num_edges());
  const LinkObservation& tx = r->rows.at(0);
  CHECK(!tx.verdicts.empty());
  CHECK(r->users_of(tx.edge).empty());  // tiny-8 stays inside one node
  CHECK(ratios[tx.edge] == kDotBusyUnpredicted);

  Result<PortMatch> again = port_match(in->cluster, {rate("h001/nic0", 0)}, nullptr);
  REQUIRE(again.ok());
  Result<ObserveJob> measured = observe_job(*in, std::move(*again), {12.5, 3});
  REQUIRE(measured.ok());
  CHECK(measured->step_measured);
  CHECK(measured->options.step_s == 12.5);
  CHECK(measured->options.tolerance == 3);
  CHECK(!measured->flagged());  // idle where the job is idle

  const nlohmann::json j = observe_job_to_json(in->cluster, *r, {"a.txt"});
  CHECK(j["counters"] == nlohmann::json::array({"a.txt"}));
  CHECK(j["links"].size() == 2);
  CHECK(j["links"][0]["observed_gbit_s"] == doctest::Approx(240));
  CHECK(j["unmatched"].empty());
  CHECK(j["note"] == kObserveCorrelation);
}

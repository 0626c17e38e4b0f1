#include "topology/transfer_alone.h"

#include <doctest/doctest.h>

#include "base/units.h"
#include "tests/support.h"
#include "topology/transfer_alone_json.h"
#include "topology/transfer_text.h"

namespace topoplan {
namespace {

TEST_CASE("transfer_alone: at a rate, with a deadline and a period") {
  TransferAloneRequest req;
  req.bytes = 100e12;
  req.efficiency = 0.8;
  req.length_km = 1000;
  req.rate = "100Gbps";
  req.deadline = "3h";
  req.every_s = 6 * 3600;
  Result<TransferAlone> a = transfer_alone(req);
  REQUIRE_MESSAGE(a.ok(), (a ? "" : a.error()));
  REQUIRE(a->estimate);
  CHECK(a->estimate->seconds == doctest::Approx(10000 + 1000 * 4.9e-6));
  CHECK(a->deadline_s == doctest::Approx(3 * 3600));
  CHECK(a->every_share == doctest::Approx(10000.0 / (6 * 3600)));
  CHECK(transfer_alone_text(*a) ==
        "100 TB at 100 Gbps x 0.8 efficiency: 2 h 46 min 40 s\n"
        "  includes propagation 4.9 ms over 1000 km\n"
        "  to finish within 3 h: " +
            format_rate_gbit(a->required_gbit_s / 8) +
            " line rate needed\n"
            "  every 6 h: 46.3% of the line rate on average; done before the next one\n");
  const nlohmann::json j = transfer_alone_to_json(*a);
  CHECK(j["rate_gbit_s"].get<double>() == doctest::Approx(100));
  CHECK(j["every"]["finishes_before_next"] == true);
  CHECK(j["required_gbit_s"].get<double>() == doctest::Approx(a->required_gbit_s));
}

TEST_CASE("transfer_alone: a deadline alone gives only the rate it needs") {
  TransferAloneRequest req;
  req.bytes = 100e12;
  req.deadline = "1h";
  Result<TransferAlone> a = transfer_alone(req);
  REQUIRE(a.ok());
  CHECK(!a->estimate);
  CHECK(transfer_alone_text(*a) ==
        "100 TB within 1 h: " + format_rate_gbit(a->required_gbit_s / 8) + " line rate needed\n");
  const nlohmann::json j = transfer_alone_to_json(*a);
  CHECK(!j.contains("seconds"));
  CHECK(j["required_gbit_s"].get<double>() == doctest::Approx(222.22).epsilon(1e-3));
}

TEST_CASE("transfer_alone: a cluster's DCI links give the rate and the distance") {
  TransferAloneRequest req;
  req.bytes = 100e12;
  req.cluster = (test::data_dir() / "clusters/two-site-h100.json").string();
  req.from = "siteA";
  req.to = "siteB";
  Result<TransferAlone> a = transfer_alone(req);
  REQUIRE_MESSAGE(a.ok(), (a ? "" : a.error()));
  CHECK(a->estimate->rate_GBps == doctest::Approx(400));
  CHECK(a->length_km == doctest::Approx(100));
  CHECK(transfer_alone_text(*a).find(" (" + a->via + "): ") != std::string::npos);
}

TEST_CASE("transfer_alone: errors name the option") {
  TransferAloneRequest req;
  req.bytes = 1e12;
  req.rate = "fast";
  CHECK(transfer_alone(req).error().rfind("--rate: ", 0) == 0);
  req.rate = "1Gbps";
  req.deadline = "soon";
  CHECK(transfer_alone(req).error().rfind("--deadline: ", 0) == 0);
  req.deadline = "1ns";
  req.length_km = 100;
  CHECK(transfer_alone(req).error() == "--deadline: shorter than the propagation delay alone");
  req = {};
  req.bytes = 1e12;
  req.cluster = "dgx-h100:2";
  CHECK(transfer_alone(req).error() == "--cluster needs --from SITE and --to SITE");
  req = {};
  req.bytes = 1e12;
  req.deadline = "1h";
  req.every_s = 60;
  CHECK(transfer_alone(req).error() == "--every needs the rate: --rate or --cluster");
  req = {};
  req.bytes = 100e15;
  req.rate = "1bps";
  CHECK(transfer_alone(req).error().find("would take more than 1000 years") != std::string::npos);
}

TEST_CASE("transfer_efficiency_text: nothing at full efficiency") {
  CHECK(transfer_efficiency_text(1) == "");
  CHECK(transfer_efficiency_text(0.9) == " x 0.9 efficiency");
}

}  // namespace
}  // namespace topoplan

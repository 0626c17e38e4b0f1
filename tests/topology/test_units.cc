#include <doctest/doctest.h>

#include "topology/units.h"

using namespace topoplan;

TEST_CASE("units: sizes are SI decimal or IEC binary") {
  CHECK(*parse_bytes("100TB") == doctest::Approx(1e14));
  CHECK(*parse_bytes("16GiB") == 17179869184.0);
  CHECK(*parse_bytes("8B") == 8);
  CHECK(*parse_bytes("8") == 8);
  CHECK(*parse_bytes("1.5KiB") == 1536);
}

TEST_CASE("units: malformed sizes name the input and the expected units") {
  Result<double> r = parse_bytes("12XB");
  REQUIRE_FALSE(r);
  CHECK(r.error().find("'12XB'") != std::string::npos);
  CHECK(r.error().find("unknown unit 'XB'") != std::string::npos);
  CHECK(r.error().find("GiB") != std::string::npos);
  CHECK_FALSE(parse_bytes("GiB"));
  CHECK_FALSE(parse_bytes(""));
  CHECK_FALSE(parse_bytes("-4GB"));
  CHECK(parse_bytes("16Gib").error().find("did you mean 'GiB'") != std::string::npos);
}

TEST_CASE("units: rates in bits or bytes per second, in GB/s") {
  CHECK(*parse_rate_GBps("400Gbps") == doctest::Approx(50));
  CHECK(*parse_rate_GBps("50GB/s") == doctest::Approx(50));
  CHECK(*parse_rate_GBps("1.6Tbps") == doctest::Approx(200));
  CHECK_FALSE(parse_rate_GBps("400"));  // a rate needs a unit: bits and bytes differ by 8x
  CHECK_FALSE(parse_rate_GBps("0Gbps"));
  CHECK(parse_rate_GBps("400Gps").error().find("did you mean") != std::string::npos);
}

TEST_CASE("units: durations") {
  CHECK(*parse_duration_s("1h") == 3600);
  CHECK(*parse_duration_s("1h30m") == 5400);
  CHECK(*parse_duration_s("30min") == 1800);
  CHECK(*parse_duration_s("500ms") == doctest::Approx(0.5));
  CHECK_FALSE(parse_duration_s("10"));
  CHECK_FALSE(parse_duration_s("h"));
  CHECK_FALSE(parse_duration_s("5 parsecs"));
  CHECK_FALSE(parse_duration_s(""));
}

TEST_CASE("units: formatting") {
  CHECK(format_duration(8000) == "2 h 13 min 20 s");
  CHECK(format_duration(2000) == "33 min 20 s");
  CHECK(format_duration(12.5) == "12.5 s");
  CHECK(format_duration(0.0025) == "2.5 ms");
  CHECK(format_bytes(17179869184.0) == "16 GiB");
  CHECK(format_bytes(1e14) == "100 TB");
  CHECK(format_rate_gbit(50) == "400 Gbps");
  CHECK(format_rate_gbit(200) == "1.6 Tbps");
  CHECK(format_number(0.1 + 0.2) == "0.3");
}

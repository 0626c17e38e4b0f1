#include <doctest/doctest.h>

#include <cmath>

#include "base/units.h"

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
  CHECK(parse_bytes("16Gib").error().find("16 Gib is 2 GiB") != std::string::npos);  // bits, not a typo of GiB
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
  // A "vs best" column: within 0.05 % is the best, beyond it the percentage over.
  CHECK(format_over_best(10.0, 10.0) == "best");
  CHECK(format_over_best(10.004, 10.0) == "best");
  CHECK(format_over_best(10.01, 10.0) == "+0.1%");
  CHECK(format_over_best(11.23, 10.0) == "+12.3%");
}

TEST_CASE("units: numbers out of range say so and name the limit") {
  CHECK(parse_bytes("1e400B").error() == "invalid size '1e400B': the number is out of range (sizes go up to 1 EB)");
  CHECK(parse_bytes("1e30B").error() == "invalid size '1e30B': out of range (sizes go up to 1 EB)");
  CHECK(*parse_bytes("1EB") == 1e18);
  CHECK(parse_bytes("infB").error().find("expected a number and a unit") != std::string::npos);
  CHECK(parse_bytes("nan").error().find("expected a number and a unit") != std::string::npos);
  CHECK(parse_rate_GBps("1e20Pbps").error().find("out of range (rates go up to 8 Pbps (1e6 GB/s))") !=
        std::string::npos);
  CHECK(parse_rate_GBps("0.5bps").error().find("below 1 bps") != std::string::npos);
  CHECK(parse_duration_s("99999999999999999999h").error() ==
        "invalid duration '99999999999999999999h': out of range (durations go up to 1000 years)");
  CHECK(parse_duration_s("999y").error().find("unknown unit 'y'") != std::string::npos);
  CHECK(parse_duration_s("1e400h").error().find("unknown unit 'e'") != std::string::npos);
}

TEST_CASE("units: case does not matter in a unit, except bits against bytes") {
  CHECK(*parse_rate_GBps("400gbps") == doctest::Approx(50));
  CHECK(parse_rate_GBps("400GBPS").error().find("did you mean 'GB/s'?") != std::string::npos);  // B: bytes
  CHECK(*parse_rate_GBps("50gb/s") == doctest::Approx(6.25));                                   // lower-case b: bits
  CHECK(parse_rate_GBps("50GBps").error().find("did you mean 'GB/s'?") != std::string::npos);
  // A b is not a B: bits where a size is meant are 8x off, so not a typo to correct.
  CHECK(parse_bytes("16gib").error() ==
        "invalid size '16gib': sizes are in bytes and 'gib' is gibibits: 16 gib is 2 GiB");
  CHECK(*parse_bytes("16GIB") == 17179869184.0);
  CHECK(parse_bytes("100tb").error() ==
        "invalid size '100tb': sizes are in bytes and 'tb' is terabits: 100 tb is 12.5 TB");
  CHECK(parse_bytes("8b").error() == "invalid size '8b': sizes are in bytes and 'b' is bits: 8 b is 1 B");
  CHECK(parse_bytes("-8Tb").error() == "invalid size '-8Tb': must not be negative");
  CHECK(parse_bytes("8Xb").error().find("unknown unit 'Xb'") != std::string::npos);
  CHECK(*parse_duration_s("1H30MIN") == 5400);
}

TEST_CASE("units: a column of sizes in one convention") {
  // Powers of two, as a sweep: binary throughout.
  const std::vector<double> sweep = {8, 1024, 262144, 6815744};
  CHECK(size_units_of(sweep) == SizeUnits::binary);
  CHECK(format_bytes(262144, SizeUnits::binary) == "256 KiB");
  CHECK(format_bytes(8, SizeUnits::binary) == "8 B");
  // One size that is not a whole number of binary units makes the column decimal, rounded.
  const std::vector<double> mixed = {134217728, 159.3e6};
  CHECK(size_units_of(mixed) == SizeUnits::decimal);
  CHECK(format_bytes(134217728, SizeUnits::decimal) == "134.2 MB");
  CHECK(format_bytes(999999999, SizeUnits::decimal) == "1 GB");
  CHECK(format_bytes(1000, SizeUnits::binary) == "1000 B");
  CHECK(size_units_of({}) == SizeUnits::binary);
  CHECK(format_bytes(-1, SizeUnits::binary) == "-1 B");
}

TEST_CASE("units: sizes in the largest unit with 3-4 significant digits") {
  CHECK(format_bytes(1610612737) == "1.61 GB");
  CHECK(format_bytes(253231104) == "241.5 MiB");  // exactly 241.5 MiB
  CHECK(format_bytes(1610612736) == "1.5 GiB");
  CHECK(format_bytes(12345678) == "12.35 MB");
  CHECK(format_bytes(999999999) == "1 GB");
  CHECK(format_bytes(1024) == "1 KiB");
  CHECK(format_bytes(1000) == "1 KB");
  CHECK(format_bytes(512) == "512 B");
  CHECK(format_bytes(1e18) == "1 EB");
  CHECK(format_rate_gbit(1.25e-10) == "1 bps");
  CHECK(format_rate_gbit(27.78) == "222.2 Gbps");
}

TEST_CASE("units: durations are never an overflowed number") {
  CHECK(format_duration(3600) == "1 h");
  CHECK(format_duration(86405) == "1 d 5 s");
  CHECK(format_duration(0.9999999) == "1 s");
  CHECK(format_duration(1e300) == "more than 1000 years");
  CHECK(format_duration(INFINITY) == "more than 1000 years");
  CHECK(format_duration(NAN) == "unknown");
  CHECK(format_duration(-90) == "-1 min 30 s");
  // Below a microsecond in ns, ps, fs: a byte at 100 Gbps is 80 ps, not "0 us". Zero stays 0 us.
  CHECK(format_duration(8e-11) == "80 ps");
  CHECK(format_duration(5e-7) == "500 ns");
  CHECK(format_duration(1.5e-9) == "1.5 ns");
  CHECK(format_duration(0.9999999e-6) == "1 us");
  CHECK(format_duration(1e-15) == "1 fs");
  CHECK(format_duration(0) == "0 us");
  CHECK(format_count(1048576) == "1,048,576");
  CHECK(format_count(-1234) == "-1,234");
  CHECK(format_exact(1e-300) == "1e-300");
  CHECK(format_exact(0.1) == "0.1");
  CHECK(format_number(1e300).size() == 301);
}

TEST_CASE("parse_bytes_range: MIN:MAX sizes, MIN at least one byte and at most MAX") {
  Result<std::pair<double, double>> r = parse_bytes_range("8B:16GiB");
  REQUIRE(r.ok());
  CHECK(r->first == 8);
  CHECK(r->second == 17179869184.0);
  CHECK(parse_bytes_range("1GiB").error() == "expected MIN:MAX such as 8B:16GiB, got '1GiB'");
  CHECK(parse_bytes_range("16GiB:8B").error() == "expected 1 <= MIN <= MAX, got '16GiB:8B'");
  CHECK(parse_bytes_range("0:8B").error() == "expected 1 <= MIN <= MAX, got '0:8B'");
  CHECK(!parse_bytes_range("8B:lots").ok());
}

#include "observe/port_match_load.h"

#include <doctest/doctest.h>

#include <fstream>

#include "tests/support.h"

namespace topoplan {
namespace {

TEST_CASE("port_match_load: counter files to rates matched to ports, the others kept aside") {
  const Cluster c = test::load_cluster("dgx-h100:2");
  const auto dir = test::temp_dir("port_match_load");
  const std::string counters = (dir / "counters.csv").string();
  std::ofstream(counters) << "link,window_s,tx_bytes,rx_bytes,discards\n"
                          << "h001/nic0,60,600000000000,0,0\n"
                          << "lid 7 port 1,60,1000,1000,0\n";
  Result<PortMatch> m = port_match_load(c, {counters}, std::nullopt, "");
  REQUIRE_MESSAGE(m.ok(), (m ? "" : m.error()));
  REQUIRE(m->rates.size() == 1);
  CHECK(m->rates[0].key == "h001/nic0");
  CHECK(m->rates[0].tx_Bps == doctest::Approx(1e10));
  REQUIRE(m->unmatched.size() == 1);
  CHECK(m->unmatched[0].counter == "lid 7 port 1");

  const std::string missing = (dir / "missing.csv").string();
  Result<PortMatch> none = port_match_load(c, {missing}, std::nullopt, "");
  REQUIRE(!none.ok());
  CHECK(none.error().starts_with(missing));
  Result<PortMatch> no_map = port_match_load(c, {counters}, std::nullopt, missing);
  REQUIRE(!no_map.ok());
  CHECK(no_map.error().starts_with(missing));
}

}  // namespace
}  // namespace topoplan

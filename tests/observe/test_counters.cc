#include "observe/counters.h"

#include <doctest/doctest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <utility>

namespace topoplan {
namespace {

using Fields = std::initializer_list<std::pair<const char*, const char*>>;

// A perfquery block as perfquery.c and libibmad's _mad_dump_field print it: the header, then each
// field as "Name:" and dots up to column 33, then the value.
std::string block(bool extended, int lid, int port, Fields fields) {
  std::string out = extended ? "# Port extended counters: Lid " + std::to_string(lid) + " port " +
                                   std::to_string(port) + " (CapMask: 0x5A00 CapMask2: 0x0000002)\n"
                             : "# Port counters: Lid " + std::to_string(lid) + " port " + std::to_string(port) +
                                   " (CapMask: 0x5A00)\n";
  out += "PortSelect:......................" + std::to_string(port) + "\n";
  out += "CounterSelect:...................0x0000\n";
  for (const auto& [name, value] : fields)
    out += std::string(name) + ":" + std::string(32 - std::string(name).size(), '.') + value + "\n";
  return out;
}

// perfquery -x of a leaf switch port, a spine-facing port and an HCA, with the counters of a
// ConnectX-7 (AdditionalPortCountersExtended: the error counters are in the extended block too).
std::string ext(int lid, int port, const char* xmit_words, const char* rcv_words, const char* discards = "0",
                const char* wait = "0", const char* downed = "0") {
  return block(true, lid, port,
               {{"PortXmitData", xmit_words},
                {"PortRcvData", rcv_words},
                {"PortXmitPkts", "1000"},
                {"PortRcvPkts", "1000"},
                {"PortUnicastXmitPkts", "1000"},
                {"PortUnicastRcvPkts", "1000"},
                {"PortMulticastXmitPkts", "0"},
                {"PortMulticastRcvPkts", "0"},
                {"CounterSelect2", "0x00"},
                {"SymbolErrorCounter", "0"},
                {"LinkErrorRecoveryCounter", "0"},
                {"LinkDownedCounter", downed},
                {"PortRcvErrors", "0"},
                {"PortRcvRemotePhysicalErrors", "0"},
                {"PortRcvSwitchRelayErrors", "0"},
                {"PortXmitDiscards", discards},
                {"PortXmitConstraintErrors", "0"},
                {"PortRcvConstraintErrors", "0"},
                {"LocalLinkIntegrityErrors", "0"},
                {"ExcessiveBufferOverrunErrors", "0"},
                {"VL15Dropped", "0"},
                {"PortXmitWait", wait},
                {"QP1Dropped", "0"}});
}

const std::string kBefore = "# time: 1767225600\n" + ext(12, 1, "1000000000", "2000000000", "5", "1000") +
                            ext(12, 17, "300000000000", "100000000000") + "# time: 1767225600.5\n" +
                            ext(40, 1, "7000000", "9000000");
// 10 s later: leaf port 1 sent 125e9 words (50 GB/s) and received 62.5e9 (25 GB/s), dropped 3 and
// waited 4000 ticks; the spine port and the HCA moved less, the HCA's link flapped once.
const std::string kAfter = "# time: 1767225610\n" + ext(12, 1, "126000000000", "64500000000", "8", "5000") +
                           ext(12, 17, "302500000000", "100000000000") + "# time: 1767225610.5\n" +
                           ext(40, 1, "1257000000", "2509000000", "0", "0", "1");

CounterSample parsed(const std::string& text, const std::string& where) {
  Result<CounterSample> s = counters_parse(text, where);
  REQUIRE_MESSAGE(s.ok(), (s ? "" : s.error()));
  return *s;
}

std::vector<PortRate> rates(const std::vector<CounterSample>& samples,
                            std::optional<double> interval_s = std::nullopt) {
  Result<std::vector<PortRate>> r = counter_rates(samples, interval_s);
  REQUIRE_MESSAGE(r.ok(), (r ? "" : r.error()));
  return *r;
}

const PortRate& find(const std::vector<PortRate>& rates, const std::string& key) {
  for (const PortRate& r : rates)
    if (r.key == key) return r;
  FAIL("no rate for " << key);
  return rates.front();
}

std::string parse_error(const std::string& text, const std::string& where = "c.txt") {
  Result<CounterSample> s = counters_parse(text, where);
  return s ? "" : s.error();
}

std::string rate_error(const std::vector<CounterSample>& samples, std::optional<double> interval_s = std::nullopt) {
  Result<std::vector<PortRate>> r = counter_rates(samples, interval_s);
  return r ? "" : r.error();
}

bool has_flag(const PortRate& r, const std::string& text) {
  for (const std::string& f : r.flags)
    if (f.find(text) != std::string::npos) return true;
  return false;
}

// ---- perfquery -----------------------------------------------------------------------------------

TEST_CASE("counters: perfquery -x blocks read as 64-bit byte counters keyed by lid and port") {
  const CounterSample s = parsed(kBefore, "before.txt");
  CHECK(s.format == CounterFormat::perfquery);
  REQUIRE(s.ports.size() == 3);
  const PortCounters& p = s.ports[0];
  CHECK(p.key == "lid 12 port 1");
  CHECK(p.line == 2);
  CHECK(p.time_s == 1767225600);
  REQUIRE(p.tx_bytes);
  CHECK(p.tx_bytes->value == 4000000000);  // 4-byte words
  CHECK(p.tx_bytes->bits == 64);
  CHECK(p.tx_bytes->unit == 4);
  CHECK_FALSE(p.tx_bytes->saturates);
  CHECK(p.rx_bytes->value == 8000000000);
  CHECK(p.tx_discards->value == 5);
  CHECK(p.xmit_wait->value == 1000);
  CHECK(p.link_downed->value == 0);
  CHECK(p.rx_errors->value == 0);
  CHECK_FALSE(p.tx_errors);  // IB has no transmit error counter
  CHECK_FALSE(p.ecn_marked);
  CHECK(s.ports[1].key == "lid 12 port 17");
  CHECK(s.ports[2].key == "lid 40 port 1");
  CHECK(s.ports[2].time_s == 1767225600.5);
}

TEST_CASE("counters: two perfquery -x samples give bytes per second and counts per window") {
  const std::vector<PortRate> r = rates({parsed(kBefore, "before.txt"), parsed(kAfter, "after.txt")});
  REQUIRE(r.size() == 3);
  CHECK(r[0].key == "lid 12 port 1");  // in the order first read
  CHECK(r[0].window_s == 10);
  CHECK(r[0].tx_Bps == doctest::Approx(50e9));
  CHECK(r[0].rx_Bps == doctest::Approx(25e9));
  CHECK(r[0].tx_discards == 3);
  CHECK(r[0].xmit_wait == 4000);
  CHECK(r[0].link_downed == 0);
  CHECK_FALSE(r[0].tx_errors);
  CHECK_FALSE(r[0].pfc_pause);
  CHECK(r[0].flags.empty());
  CHECK(r[0].where == "before.txt:2 -> after.txt:2");
  CHECK(r[1].tx_Bps == doctest::Approx(1e9));
  CHECK(r[1].rx_Bps == 0);
  CHECK(r[2].key == "lid 40 port 1");
  CHECK(r[2].window_s == 10);
  CHECK(r[2].tx_Bps == doctest::Approx(500e6));
  CHECK(r[2].link_downed == 1);
}

TEST_CASE("counters: perfquery files per switch, in any order, group by their times") {
  const auto split = [](const std::string& text, int lid) {
    // The blocks of one lid with their time lines: one file per switch, as a loop over switches writes.
    std::string out, time;
    std::istringstream in(text);
    std::string line;
    bool keep = false;
    while (std::getline(in, line)) {
      if (line.rfind("# time:", 0) == 0)
        time = line + "\n";
      else if (line.rfind("# Port", 0) == 0) {
        keep = line.find("Lid " + std::to_string(lid) + " ") != std::string::npos;
        if (keep) out += time + line + "\n";
      } else if (keep)
        out += line + "\n";
    }
    return out;
  };
  const std::vector<CounterSample> samples = {
      parsed(split(kAfter, 12), "leaf-after.txt"), parsed(split(kBefore, 40), "hca-before.txt"),
      parsed(split(kBefore, 12), "leaf-before.txt"), parsed(split(kAfter, 40), "hca-after.txt")};
  const std::vector<PortRate> r = rates(samples);
  REQUIRE(r.size() == 3);
  CHECK(find(r, "lid 12 port 1").tx_Bps == doctest::Approx(50e9));
  CHECK(find(r, "lid 12 port 1").where == "leaf-before.txt:2 -> leaf-after.txt:2");
  CHECK(find(r, "lid 40 port 1").tx_Bps == doctest::Approx(500e6));
}

TEST_CASE("counters: a loop appending perfquery to one log gives rates from one file") {
  // while :; do echo "# time: $(date +%s)"; perfquery -x 12 1; sleep 10; done >> leaf.log
  const std::string log = "# time: 100\n" + ext(12, 1, "0", "0") + "# time: 110\n" + ext(12, 1, "2500000000", "0") +
                          "# time: 120\n" + ext(12, 1, "5000000000", "0");
  const CounterSample s = parsed(log, "leaf.log");
  REQUIRE(s.ports.size() == 3);
  const std::vector<PortRate> r = rates({s});
  REQUIRE(r.size() == 1);
  CHECK(r[0].window_s == 20);  // first to last
  CHECK(r[0].tx_Bps == doctest::Approx(1e9));
  CHECK(r[0].where == "leaf.log:2 -> leaf.log:56");
}

TEST_CASE("counters: plain perfquery counters are 32-bit and a saturated one is flagged, not a rate") {
  // Plain perfquery (PortCounters): data in 32-bit words that stop at 2^32-1, errors 16 and 8 bits.
  const auto plain = [](const char* xmit, const char* rcv, const char* discards) {
    return block(false, 7, 3,
                 {{"SymbolErrorCounter", "0"},
                  {"LinkErrorRecoveryCounter", "0"},
                  {"LinkDownedCounter", "0"},
                  {"PortRcvErrors", "0"},
                  {"PortXmitDiscards", discards},
                  {"CounterSelect2", "0x00"},
                  {"PortXmitData", xmit},
                  {"PortRcvData", rcv},
                  {"PortXmitPkts", "10"},
                  {"PortRcvPkts", "10"},
                  {"PortXmitWait", "0"}});
  };
  const CounterSample before = parsed("# time: 0\n" + plain("4000000000", "1000", "65530"), "b.txt");
  const PortCounters& p = before.ports[0];
  CHECK(p.tx_bytes->bits == 32);
  CHECK(p.tx_bytes->saturates);
  CHECK(p.tx_bytes->value == 16000000000);
  CHECK(p.tx_discards->bits == 16);
  CHECK(p.link_downed->bits == 8);
  const CounterSample after = parsed("# time: 5\n" + plain("4294967295", "251000", "65535"), "a.txt");
  CHECK(after.ports[0].tx_bytes->saturated());
  const std::vector<PortRate> r = rates({before, after});
  REQUIRE(r.size() == 1);
  CHECK_FALSE(r[0].tx_Bps);
  CHECK(has_flag(r[0], "tx_bytes saturated at 2^32-1"));
  CHECK_FALSE(r[0].tx_discards);
  CHECK(has_flag(r[0], "tx_discards saturated at 2^16-1"));
  CHECK(r[0].rx_Bps == doctest::Approx(200000));  // 250,000 words in 5 s
  CHECK(r[0].xmit_wait == 0);

  CHECK(parse_error(plain("4294967296", "0", "0")) ==
        "c.txt:10: PortXmitData: '4294967296' is above 2^32-1, the most a plain perfquery counter holds (was this "
        "perfquery -x output?)");
}

TEST_CASE("counters: older perfquery names, and a plain and an extended block of one port merge") {
  // libibmad before the IBA names (as collectd's and tacc_stats' comments quote it).
  const std::string old =
      "# Port counters: Lid 214 port 35\nPortSelect:......................35\n"
      "SymbolErrors:....................7\nLinkDowned:......................0\n"
      "RcvErrors:.......................2\nXmtDiscards:.....................3\n"
      "XmtData:.........................905972985\nRcvData:.........................2411533950\n"
      "XmtPkts:.........................22945597\n";
  const CounterSample s = parsed(old, "old.txt");
  REQUIRE(s.ports.size() == 1);
  CHECK(s.ports[0].key == "lid 214 port 35");
  CHECK(s.ports[0].tx_bytes->value == 905972985ull * 4);
  CHECK(s.ports[0].symbol_errors->value == 7);
  CHECK(s.ports[0].rx_errors->value == 2);

  // perfquery -x for data (an HCA without AdditionalPortCountersExtended), plain perfquery for errors.
  const std::string both = block(true, 5, 1, {{"PortXmitData", "8472649621"}, {"PortRcvData", "7391204418"}}) +
                           block(false, 5, 1,
                                 {{"SymbolErrorCounter", "47"},
                                  {"PortXmitDiscards", "2"},
                                  {"PortXmitData", "4294967295"},
                                  {"PortRcvData", "4294967295"},
                                  {"PortXmitWait", "182941"}});
  const CounterSample m = parsed(both, "both.txt");
  REQUIRE(m.ports.size() == 1);
  CHECK(m.ports[0].tx_bytes->bits == 64);  // the extended counter wins
  CHECK(m.ports[0].tx_bytes->value == 8472649621ull * 4);
  CHECK(m.ports[0].symbol_errors->value == 47);
  CHECK(m.ports[0].symbol_errors->bits == 16);
  CHECK(m.ports[0].xmit_wait->value == 182941);
}

TEST_CASE("counters: other perfquery blocks, a directed-route port and comments are read past") {
  const std::string text = "# perfquery -x on leaf3, operator's note\n" + ext(3, 2, "10", "20") +
                           "# PortXmitDataSL counters: Lid 3 port 2\nXmtDataSL0:......................1\n"
                           "# Port extended counters: DR path slid 0; dlid 0; 0,1 port 4 (CapMask: 0x5A00)\n"
                           "PortXmitData:....................1\nPortRcvData:.....................2\n";
  const CounterSample s = parsed(text, "x.txt");
  REQUIRE(s.ports.size() == 2);
  CHECK(s.ports[0].key == "lid 3 port 2");
  CHECK(s.ports[1].key == "DR path slid 0; dlid 0; 0,1 port 4");
  CHECK_FALSE(s.ports[0].time_s);
}

TEST_CASE("counters: a 64-bit counter that wrapped near 2^64 gives the modular delta, flagged") {
  // PortXmitData in words: 1000 words short of 2^64, then 500 words past it: 1500 words, 6000 bytes.
  const CounterSample a = parsed("# time: 0\n" + ext(9, 1, "18446744073709550616", "0"), "a.txt");
  const CounterSample b = parsed("# time: 2\n" + ext(9, 1, "500", "0"), "b.txt");
  const std::vector<PortRate> r = rates({a, b});
  REQUIRE(r.size() == 1);
  CHECK(r[0].tx_Bps == doctest::Approx(3000));
  CHECK(has_flag(r[0], "tx_bytes wrapped at 2^64"));
  CHECK(r[0].rx_Bps == 0);

  // node_exporter's 64-bit netdev counter, 2048 short of 2^64 (exact as a double), then 1e6.
  const auto netdev = [](const char* tx, const char* ts) {
    return std::string(
               "# TYPE node_network_transmit_bytes_total "
               "counter\nnode_network_transmit_bytes_total{device=\"eth0\"} ") +
           tx + " " + ts + "\n";
  };
  const std::vector<PortRate> n =
      rates({parsed(netdev("18446744073709549568", "1000"), "p1.prom"), parsed(netdev("1e6", "11000"), "p2.prom")});
  REQUIRE(n.size() == 1);
  CHECK(n[0].key == "eth0");
  CHECK(n[0].tx_Bps == doctest::Approx(100204.8));
  CHECK(has_flag(n[0], "tx_bytes wrapped at 2^64"));
}

TEST_CASE("counters: a counter that went backwards is flagged as a reset and gets no rate") {
  // perfquery -R between the samples: far from 2^64, so not a wrap.
  const CounterSample a = parsed("# time: 0\n" + ext(9, 1, "1250000000000", "1000", "40"), "a.txt");
  const CounterSample b = parsed("# time: 10\n" + ext(9, 1, "1000", "2000", "0"), "b.txt");
  const std::vector<PortRate> r = rates({a, b});
  REQUIRE(r.size() == 1);
  CHECK_FALSE(r[0].tx_Bps);
  CHECK(has_flag(r[0], "tx_bytes went backwards (counter reset?) at b.txt:2"));
  CHECK_FALSE(r[0].tx_discards);
  CHECK(has_flag(r[0], "tx_discards went backwards"));
  CHECK(r[0].rx_Bps == doctest::Approx(400));  // the others still count

  // Three samples: the middle pair reset, so the first-to-last rate is refused although last > first.
  const CounterSample c = parsed("# time: 20\n" + ext(9, 1, "1250000001000", "3000", "0"), "c.txt");
  const std::vector<PortRate> r3 = rates({a, b, c});
  CHECK_FALSE(r3[0].tx_Bps);
  CHECK(has_flag(r3[0], "tx_bytes went backwards (counter reset?) at b.txt:2"));
  CHECK(r3[0].rx_Bps == doctest::Approx(400));
  CHECK(r3[0].window_s == 20);
}

TEST_CASE("counters: a port in one sample only is a flagged row") {
  const CounterSample a = parsed("# time: 0\n" + ext(9, 1, "0", "0") + ext(9, 2, "0", "0"), "a.txt");
  const CounterSample b = parsed("# time: 1\n" + ext(9, 1, "25", "0"), "b.txt");
  const std::vector<PortRate> r = rates({a, b});
  REQUIRE(r.size() == 2);
  CHECK(r[0].tx_Bps == 100);
  CHECK(r[1].key == "lid 9 port 2");
  CHECK(r[1].flags == std::vector<std::string>{"only in one sample"});
  CHECK(r[1].window_s == 0);
  CHECK_FALSE(r[1].tx_Bps);
  CHECK(r[1].where == "a.txt:28");
}

// ---- Prometheus ----------------------------------------------------------------------------------

// node_exporter through Prometheus' /federate: instance labels and timestamps in milliseconds.
std::string federated(long long t_ms, const char* eth_tx, const char* eth_rx, const char* ib_tx, const char* ib_wait) {
  const auto series = [&](const std::string& name, const std::string& labels, const std::string& value) {
    return name + "{" + labels + ",instance=\"h001:9100\",job=\"node\"} " + value + " " + std::to_string(t_ms) + "\n";
  };
  const auto ib = [&](const std::string& name, const std::string& value) {
    return series("node_infiniband_" + name, "device=\"mlx5_0\",port=\"1\"", value);
  };
  return "# HELP node_network_transmit_bytes_total Network device statistic transmit_bytes.\n"
         "# TYPE node_network_transmit_bytes_total counter\n" +
         series("node_network_transmit_bytes_total", "device=\"eth0\"", eth_tx) +
         series("node_network_transmit_bytes_total", "device=\"lo\"", "1.2e9") +
         "# HELP node_network_receive_bytes_total Network device statistic receive_bytes.\n"
         "# TYPE node_network_receive_bytes_total counter\n" +
         series("node_network_receive_bytes_total", "device=\"eth0\"", eth_rx) +
         series("node_network_receive_bytes_total", "device=\"lo\"", "1.2e9") +
         "# HELP node_network_receive_drop_total Network device statistic receive_drop.\n"
         "# TYPE node_network_receive_drop_total counter\n" +
         series("node_network_receive_drop_total", "device=\"eth0\"", "0") +
         "# HELP node_network_speed_bytes Network device property: speed_bytes\n"
         "# TYPE node_network_speed_bytes gauge\n" +
         series("node_network_speed_bytes", "device=\"eth0\"", "1.25e+08") +
         "# HELP node_infiniband_port_data_transmitted_bytes_total Number of data octets transmitted on all "
         "links\n"
         "# TYPE node_infiniband_port_data_transmitted_bytes_total counter\n" +
         ib("port_data_transmitted_bytes_total", ib_tx) +
         "# HELP node_infiniband_port_data_received_bytes_total Number of data octets received on all links\n"
         "# TYPE node_infiniband_port_data_received_bytes_total counter\n" +
         ib("port_data_received_bytes_total", "1.493376e+07") +
         "# TYPE node_infiniband_port_discards_transmitted_total counter\n" +
         ib("port_discards_transmitted_total", "5") + "# TYPE node_infiniband_port_transmit_wait_total counter\n" +
         ib("port_transmit_wait_total", ib_wait) +
         "# TYPE node_infiniband_np_ecn_marked_roce_packets_received_total counter\n" +
         ib("np_ecn_marked_roce_packets_received_total", "12");
}

TEST_CASE("counters: node_exporter netdev and infiniband series through /federate") {
  const CounterSample a =
      parsed(federated(1767225600000, "1.2e9", "3.4e9", "2.38334949937759e+14", "4.294967295e+09"), "a.prom");
  CHECK(a.format == CounterFormat::prometheus);
  REQUIRE(a.ports.size() == 3);
  CHECK(a.ports[0].key == "h001 eth0");
  CHECK(a.ports[0].time_s == 1767225600);
  CHECK(a.ports[0].tx_bytes->value == 1200000000);
  CHECK(a.ports[0].rx_discards->value == 0);
  CHECK(a.ports[1].key == "h001 lo");
  CHECK(a.ports[2].key == "h001 mlx5_0 1");
  CHECK(a.ports[2].tx_bytes->value == 238334949937759);
  CHECK(a.ports[2].tx_bytes->bits == 64);
  CHECK(a.ports[2].ecn_marked->value == 12);
  // The kernel's port_xmit_wait is PortCounters' 32-bit counter: at 2^32-1 it has stopped.
  CHECK(a.ports[2].xmit_wait->saturated());
  CHECK(a.ports[2].line == 17);

  const CounterSample b =
      parsed(federated(1767225615000, "1.35e9", "3.4e9", "2.38349949937759e+14", "4.294967295e+09"), "b.prom");
  const std::vector<PortRate> r = rates({a, b});
  REQUIRE(r.size() == 3);
  CHECK(r[0].key == "h001 eth0");
  CHECK(r[0].window_s == 15);
  CHECK(r[0].tx_Bps == doctest::Approx(10e6));
  CHECK(r[0].rx_Bps == 0);
  CHECK(r[2].tx_Bps == doctest::Approx(1e9));
  CHECK_FALSE(r[2].xmit_wait);
  CHECK(has_flag(r[2], "xmit_wait saturated at 2^32-1"));
  CHECK(r[2].ecn_marked == 0);
}

TEST_CASE("counters: node_exporter scraped directly: no timestamps, escapes, halves and an interval") {
  // curl -s h001:9100/metrics: no instance label, no timestamps; label values escaped.
  const auto scrape = [](const char* tx) {
    return std::string(
               "# HELP node_network_transmit_bytes_total Network device statistic transmit_bytes.\n"
               "# TYPE node_network_transmit_bytes_total counter\n"
               "node_network_transmit_bytes_total{device=\"eth0\"} ") +
           tx +
           "\n"
           "node_network_transmit_bytes_total{device=\"we\\\"ird\\\\dev\\n\",} 0\n"
           "process_cpu_seconds_total 1.5\n"
           "node_scrape_collector_success{collector=\"infiniband\"} NaN\n";
  };
  const CounterSample a = parsed(scrape("1000"), "a.prom");
  REQUIRE(a.ports.size() == 2);
  CHECK(a.ports[1].key == "we\"ird\\dev\n");
  CHECK_FALSE(a.ports[0].time_s);
  const CounterSample b = parsed(scrape("21000"), "b.prom");
  CHECK(rate_error({a, b}) ==
        "a.prom: the samples have no times ('# time:' lines or Prometheus timestamps): give the interval between them");
  const std::vector<PortRate> r = rates({a, b}, 10.0);
  CHECK(r[0].tx_Bps == 2000);
  CHECK(r[0].window_s == 10);
  // A '# time:' line before the scrape gives it a time.
  const std::vector<PortRate> timed =
      rates({parsed("# time: 50\n" + scrape("1000"), "a.prom"), parsed("# time: 54\n" + scrape("21000"), "b.prom")});
  CHECK(timed[0].tx_Bps == 5000);
}

// ---- CSV -----------------------------------------------------------------------------------------

TEST_CASE("counters: a CSV row is a window already, so one file gives rates") {
  const std::string csv =
      "# from the switch telemetry collector\n"
      "window_s,link,rx_bytes,tx_bytes,discards,ecn_marked,pfc_pause\n"
      "10,leaf1:eth1/1 -> spine1:eth1/1,5e9,1.25e10,,120,0\n"
      "10, leaf1:eth1/2 -> spine2:eth1/1 ,0,2500000000,3,,\n"
      "2.5,\"h001/mlx5_0, port 1\",1000,,,,\n";
  const CounterSample s = parsed(csv, "links.csv");
  CHECK(s.format == CounterFormat::csv);
  REQUIRE(s.ports.size() == 3);
  CHECK(s.ports[0].window_s == 10);
  CHECK(s.ports[0].line == 3);
  CHECK_FALSE(s.ports[0].tx_discards);
  CHECK(s.ports[1].key == "leaf1:eth1/2 -> spine2:eth1/1");
  CHECK(s.ports[2].key == "h001/mlx5_0, port 1");
  const std::vector<PortRate> r = rates({s});
  REQUIRE(r.size() == 3);
  CHECK(r[0].tx_Bps == doctest::Approx(1.25e9));
  CHECK(r[0].rx_Bps == doctest::Approx(5e8));
  CHECK(r[0].ecn_marked == 120);
  CHECK(r[0].pfc_pause == 0);
  CHECK_FALSE(r[0].tx_discards);
  CHECK(r[1].tx_discards == 3);
  CHECK_FALSE(r[1].ecn_marked);
  CHECK(r[2].rx_Bps == 400);
  CHECK_FALSE(r[2].tx_Bps);
  CHECK(r[2].window_s == 2.5);
  CHECK(r[2].where == "links.csv:5");
}

TEST_CASE("counters: the format is told by the content, not the file name") {
  const auto dir = std::filesystem::temp_directory_path() / ("topoplan-counters-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream((dir / name).string()) << text;
    return (dir / name).string();
  };
  Result<CounterSample> p = counters_load(write("perfquery.csv", kBefore));
  REQUIRE_MESSAGE(p.ok(), (p ? "" : p.error()));
  CHECK(p->format == CounterFormat::perfquery);
  CHECK(p->source == (dir / "perfquery.csv").string());
  Result<CounterSample> c = counters_load(write("links.prom", "link,window_s,tx_bytes\nl1,1,1\n"));
  REQUIRE(c.ok());
  CHECK(c->format == CounterFormat::csv);
  Result<CounterSample> missing = counters_load((dir / "absent.txt").string());
  CHECK_FALSE(missing.ok());
  CHECK(missing.error().find("absent.txt") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("counters: one table names the formats, says what --counters reads and detects each") {
  CHECK(to_string(CounterFormat::perfquery) == "perfquery");
  CHECK(to_string(CounterFormat::prometheus) == "prometheus");
  CHECK(to_string(CounterFormat::csv) == "csv");
  CHECK(counter_formats_help() == "perfquery output, Prometheus text (node_exporter) or CSV windows");
  CHECK(parsed("# HELP node_network_transmit_bytes_total x\n"
               "node_network_transmit_bytes_total{device=\"eth0\",instance=\"h001:9100\"} 5\n",
               "a.prom")
            .format == CounterFormat::prometheus);
  // A comment that reads like a CSV header says nothing; the header under it does.
  CHECK(parsed("# link,window_s,tx_bytes\nlink,window_s,tx_bytes\nl1,1,5\n", "c.csv").format == CounterFormat::csv);
}

// ---- bad input -----------------------------------------------------------------------------------

TEST_CASE("counters: an empty file or an unknown format is an error naming the file") {
  CHECK(parse_error("") == "c.txt: empty: no counters, only blank lines and comments");
  CHECK(parse_error("\n# time: 5\n  \n# just a note\n") == "c.txt: empty: no counters, only blank lines and comments");
  CHECK(
      parse_error("PortXmitData:....................1\n") ==
      "c.txt: not a counter file: 'PortXmitData:....................1' is neither perfquery's '# Port counters: Lid N "
      "port N' header, Prometheus text ('name{labels} value') nor a CSV header with a 'link' column");
  CHECK(parse_error("{\"ports\": []}\n").find("c.txt: not a counter file") == 0);
}

TEST_CASE("counters: bad perfquery input is an error at its line") {
  CHECK(parse_error(block(true, 1, 1, {{"PortXmitData", "12x"}, {"PortRcvData", "0"}})) ==
        "c.txt:4: PortXmitData: expected a whole number of 4-byte words, got '12x'");
  CHECK(parse_error(block(true, 1, 1, {{"PortXmitData", "-1"}, {"PortRcvData", "0"}})) ==
        "c.txt:4: PortXmitData: expected a whole number of 4-byte words, got '-1'");
  CHECK(parse_error(block(true, 1, 1, {{"PortXmitData", "18446744073709551616"}})) ==
        "c.txt:4: PortXmitData: expected a whole number of 4-byte words, got '18446744073709551616'");
  CHECK(parse_error(block(true, 1, 1, {{"PortXmitWait", "abc"}})) ==
        "c.txt:4: PortXmitWait: expected a whole number of counts, got 'abc'");
  CHECK(parse_error(block(true, 12, 1, {{"PortXmitPkts", "5"}, {"SymbolErrorCounter", "0"}})) ==
        "c.txt:1: the block for lid 12 port 1 has no PortXmitData or PortRcvData (no data counters)");
  CHECK(parse_error(block(true, 12, 1, {}) + ext(12, 2, "1", "1")) ==
        "c.txt:1: the block for lid 12 port 1 has no PortXmitData or PortRcvData (no data counters)");
  CHECK(parse_error(ext(12, 1, "1", "1") + "garbage line\n") ==
        "c.txt:27: expected 'Name:....value' in the block for lid 12 port 1, got 'garbage line'");
  CHECK(parse_error(ext(12, 1, "1", "1") + "PortXmitData:....................5\n") ==
        "c.txt:27: PortXmitData twice in the block for lid 12 port 1");
  CHECK(parse_error("# Port counters: Lid 12 (CapMask: 0x5A00)\nPortXmitData:....................1\n") ==
        "c.txt:1: expected '# Port counters: Lid <lid> port <port> (CapMask: ...)', got '# Port counters: Lid 12 "
        "(CapMask: 0x5A00)'");
  CHECK(parse_error("# time: yesterday\n" + ext(12, 1, "1", "1")) ==
        "c.txt:1: expected '# time: <unix seconds>' (date +%s), got 'yesterday'");
  CHECK(parse_error("# time: nan\n" + ext(12, 1, "1", "1")).find("c.txt:1: expected '# time:") == 0);
  // A port twice at one time; a plain and an extended block of it merge instead.
  CHECK(parse_error(ext(12, 1, "1", "1") + ext(12, 1, "2", "2")) ==
        "c.txt:27: lid 12 port 1 again (first at line 1): a file holds each port once per '# time:'");
  CHECK(parse_error("# time: 1\n" + ext(12, 1, "1", "1") + "# time: 1\n" + ext(12, 1, "2", "2")) ==
        "c.txt:29: lid 12 port 1 again (first at line 2): a file holds each port once per '# time:'");
}

TEST_CASE("counters: bad Prometheus input is an error at its line") {
  const std::string help = "# TYPE node_network_transmit_bytes_total counter\n";
  CHECK(parse_error(help + "node_network_transmit_bytes_total{device=\"eth0\"} NaN\n") ==
        "c.txt:2: 'node_network_transmit_bytes_total{device=\"eth0\"}': NaN is not a counter value");
  CHECK(parse_error(help + "node_network_transmit_bytes_total{device=\"eth0\"} +Inf\n") ==
        "c.txt:2: 'node_network_transmit_bytes_total{device=\"eth0\"}': an infinite value is not a counter value");
  CHECK(parse_error(help + "node_network_transmit_bytes_total{device=\"eth0\"} -5\n") ==
        "c.txt:2: 'node_network_transmit_bytes_total{device=\"eth0\"}': a counter is never negative");
  CHECK(parse_error(help + "node_network_transmit_bytes_total{device=\"eth0\"} 2e19\n") ==
        "c.txt:2: 'node_network_transmit_bytes_total{device=\"eth0\"}': above 2^64-1, the largest 64-bit counter");
  CHECK(parse_error(help + "node_network_transmit_bytes_total{device=eth0} 5\n") ==
        "c.txt:2: expected '\"' to open label device's value in 'node_network_transmit_bytes_total{device=eth0} 5'");
  CHECK(parse_error(help + "node_network_transmit_bytes_total{device=\"eth0\" 5\n") ==
        "c.txt:2: expected ',' or '}' after label device in 'node_network_transmit_bytes_total{device=\"eth0\" 5'");
  CHECK(
      parse_error(help + "node_network_transmit_bytes_total{device=\"eth0} 5\n") ==
      "c.txt:2: label device's value is not closed with '\"' in 'node_network_transmit_bytes_total{device=\"eth0} 5'");
  CHECK(parse_error(help + "node_network_transmit_bytes_total{device=\"a\\tb\"} 5\n") ==
        "c.txt:2: label device: '\\t' is not an escape (\\\\, \\\", \\n) in "
        "'node_network_transmit_bytes_total{device=\"a\\tb\"} 5'");
  CHECK(parse_error(help + "node_network_transmit_bytes_total{device=\"a\",device=\"b\"} 5\n") ==
        "c.txt:2: label device twice in 'node_network_transmit_bytes_total{device=\"a\",device=\"b\"} 5'");
  CHECK(parse_error(help + "node_network_transmit_bytes_total{0device=\"a\"} 5\n") ==
        "c.txt:2: expected a label name or '}' in 'node_network_transmit_bytes_total{0device=\"a\"} 5'");
  CHECK(parse_error(help + "node_network_transmit_bytes_total{device=\"a\"} 5 17e2\n") ==
        "c.txt:2: expected a timestamp in whole milliseconds after the value, got '17e2'");
  CHECK(parse_error(help + "node_network_transmit_bytes_total{device=\"a\"} 5 1 2\n") ==
        "c.txt:2: expected 'name{labels} value [timestamp]', got 'node_network_transmit_bytes_total{device=\"a\"} 5 1 "
        "2'");
  CHECK(parse_error(help + "node_network_transmit_bytes_total{device=\"a\"} five\n") ==
        "c.txt:2: expected a number (or NaN, +Inf, -Inf) as the value, got 'five'");
  CHECK(parse_error(help + "node_network_transmit_bytes_total{instance=\"h1:9100\"} 5\n") ==
        "c.txt:2: 'node_network_transmit_bytes_total{instance=\"h1:9100\"}': expected a non-empty device label");
  CHECK(parse_error(
            help +
            "node_network_transmit_bytes_total{device=\"a\"} 5\nnode_network_transmit_bytes_total{device=\"a\"} 6\n") ==
        "c.txt:3: 'node_network_transmit_bytes_total{device=\"a\"}': a's tx_bytes again (first at line 2): a file "
        "holds each series once per time");
  CHECK(parse_error(help + "node_network_transmit_bytes_total{device=\"a\"} 5 -1000\n") ==
        "c.txt:2: 'node_network_transmit_bytes_total{device=\"a\"}': timestamp -1000 ms is not a time from 1970 on "
        "(Prometheus timestamps are unix milliseconds)");
  CHECK(parse_error("# HELP go_goroutines Number of goroutines.\ngo_goroutines 12\n") ==
        "c.txt: no port counters: none of node_exporter's node_network_*_bytes_total or "
        "node_infiniband_port_data_*_bytes_total series");
  CHECK(parse_error("node_network_receive_drop_total{device=\"eth0\"} 5\n") ==
        "c.txt:1: eth0 has counters but no transmit or receive bytes");
  std::string labels;
  for (int i = 0; i < 65; ++i) labels += "l" + std::to_string(i) + "=\"v\",";
  CHECK(parse_error(help + "node_network_transmit_bytes_total{" + labels + "} 5\n")
            .find("c.txt:2: more than 64 labels in") == 0);
  // The same series in two scrapes appended to one file is two readings, not a repeat.
  const CounterSample two = parsed(help +
                                       "node_network_transmit_bytes_total{device=\"a\"} 5 1000\n"
                                       "node_network_transmit_bytes_total{device=\"a\"} 9 2000\n",
                                   "two.prom");
  CHECK(two.ports.size() == 2);
  CHECK(rates({two})[0].tx_Bps == 4);
}

TEST_CASE("counters: bad CSV input is an error at its line, naming the column") {
  CHECK(parse_error("link,tx_bytes\nl1,5\n") ==
        "c.txt:1: the header has no 'window_s' column: the seconds each row's deltas cover");
  CHECK(parse_error("link,window_s,discards\nl1,1,5\n") ==
        "c.txt:1: the header has neither a 'tx_bytes' nor an 'rx_bytes' column");
  CHECK(parse_error("link,window_s,tx_byte\n") == "c.txt:1: unknown column 'tx_byte', did you mean 'tx_bytes'?");
  CHECK(parse_error("link,window_s,tx_bytes,TX_BYTES\n") == "c.txt:1: column 'tx_bytes' twice");
  CHECK(parse_error("link,window_s,tx_bytes,tx_discards,discards\n") ==
        "c.txt:1: columns 'discards' and 'tx_discards' both: discards is tx_discards");
  CHECK(parse_error("link,window_s,tx_bytes\nl1,10,lots\n") == "c.txt:2: tx_bytes: expected a count >= 0, got 'lots'");
  CHECK(parse_error("link,window_s,tx_bytes\nl1,10,-5\n") ==
        "c.txt:2: tx_bytes: expected a count >= 0, got '-5' (a counter is never negative)");
  CHECK(parse_error("link,window_s,tx_bytes,ecn_marked\nl1,10,5,1e20\n") ==
        "c.txt:2: ecn_marked: expected a count >= 0, got '1e20' (above 2^64-1, the largest 64-bit counter)");
  CHECK(parse_error("link,window_s,tx_bytes\nl1,10,inf\n") ==
        "c.txt:2: tx_bytes: expected a count >= 0, got 'inf' (an infinite value is not a counter value)");
  CHECK(parse_error("link,window_s,tx_bytes\nl1,0,5\n") ==
        "c.txt:2: window_s: expected the seconds the row covers, a number > 0, got '0'");
  CHECK(parse_error("link,window_s,tx_bytes\nl1,,5\n") ==
        "c.txt:2: window_s: expected the seconds the row covers, a number > 0, got ''");
  CHECK(parse_error("link,window_s,tx_bytes\nl1,10\n") == "c.txt:2: 2 fields, but the header (line 1) has 3 columns");
  CHECK(parse_error("link,window_s,tx_bytes\nl1,10,1" + std::string(100000, ',') + "\n") ==
        "c.txt:2: more than 3 fields, but the header (line 1) has 3 columns");
  CHECK(parse_error("link,window_s,tx_bytes\nl1,10,1,2\n") ==
        "c.txt:2: more than 3 fields, but the header (line 1) has 3 columns");
  CHECK(parse_error("link,window_s,tx_bytes\n,10,1\n") ==
        "c.txt:2: link: empty; each row names the link its counters are for");
  CHECK(parse_error("link,window_s,tx_bytes,rx_bytes\nl1,10,,\n") == "c.txt:2: 'l1' has neither tx_bytes nor rx_bytes");
  CHECK(parse_error("link,window_s,tx_bytes\nl1,10,1\nl1,10,2\n") == "c.txt:3: link 'l1' again (first at line 2)");
  CHECK(parse_error("link,window_s,tx_bytes\n\"l1,10,1\n") ==
        "c.txt:2: a quoted field is not closed, or text follows its closing quote: '\"l1,10,1'");
  CHECK(parse_error("link,window_s,tx_bytes\n") == "c.txt:1: a header and no rows");
  // Files joined with cat repeat the header: read past it.
  CHECK(parsed("link,window_s,tx_bytes\nl1,1,1\nLINK,window_s,tx_bytes\nl2,1,1\n", "cat.csv").ports.size() == 2);
}

TEST_CASE("counters: rates refuse what would give a wrong number") {
  const CounterSample before = parsed(kBefore, "before.txt"), after = parsed(kAfter, "after.txt");
  CHECK(rate_error({}) == "no counter samples: rates need at least one CSV file or two samples");
  CHECK(rate_error({before, parsed("link,window_s,tx_bytes\nl1,1,1\n", "l.csv")}) ==
        "l.csv is csv but before.txt is perfquery: rates come from samples of one format");
  // No times and no interval; a zero or negative window.
  const CounterSample a = parsed(ext(1, 1, "0", "0"), "a.txt"), b = parsed(ext(1, 1, "10", "0"), "b.txt");
  CHECK(rate_error({a, b}) ==
        "a.txt: the samples have no times ('# time:' lines or Prometheus timestamps): give the interval between them");
  CHECK(rate_error({a, b}, 0.0) == "interval: expected the seconds between samples, > 0, got 0");
  CHECK(rate_error({a, b}, -5.0) == "interval: expected the seconds between samples, > 0, got -5");
  CHECK(rates({a, b}, 4.0)[0].tx_Bps == 10);
  CHECK(rate_error({before, before}) ==
        "before.txt:2: lid 12 port 1 at time 1767225600 as at before.txt:2: a window of zero seconds");
  // Times on some readings only.
  CHECK(
      rate_error({a, after}) ==
      "after.txt:55 has a time and a.txt:1 has none: give every sample a time ('# time:' lines, Prometheus timestamps) "
      "or none and an interval");
  // Without times: halves.
  CHECK(
      rate_error({a, b, a}, 1.0) ==
      "3 samples without times: the first half is read as one moment and the second half as the next, so give as many "
      "files after as before (or '# time:' lines)");
  CHECK(rate_error({a, b, a, b}, 1.0) ==
        "b.txt:1: lid 1 port 1 again in the same half as a.txt:1: without times, the first half of the files is one "
        "moment "
        "and the second half the next; add '# time:' lines (date +%s) for more moments");
  const CounterSample c = parsed(ext(2, 1, "0", "0"), "c.txt"), d = parsed(ext(2, 1, "20", "0"), "d.txt");
  const std::vector<PortRate> halves = rates({a, c, b, d}, 1.0);  // one file per switch, before then after
  REQUIRE(halves.size() == 2);
  CHECK(halves[0].tx_Bps == 40);
  CHECK(halves[1].tx_Bps == 80);
  CHECK(rate_error({a}, 1.0) == "a.txt: one sample without times: rates need a second one, taken later");
  // One moment only.
  CHECK(rate_error({before}) ==
        "before.txt: no port was read twice: rates need counters from two moments (a second sample taken later)");
  // CSV: a link in two files.
  const CounterSample l1 = parsed("link,window_s,tx_bytes\nl1,1,1\n", "x.csv"),
                      l2 = parsed("link,window_s,tx_bytes\nl1,1,1\n", "y.csv");
  CHECK(rate_error({l1, l2}) ==
        "y.csv:2: link 'l1' again (first at x.csv:2): each CSV row is a window of its own, so a link is given once");
  // A byte rate beyond any link (a key matched to another port's counters) is flagged, not returned.
  const CounterSample fast = parsed("# time: 0.001\n" + ext(12, 1, "18000000000000000", "1"), "fast.txt");
  const std::vector<PortRate> r = rates({parsed("# time: 0\n" + ext(12, 1, "0", "0"), "zero.txt"), fast});
  CHECK_FALSE(r[0].tx_Bps);
  CHECK(has_flag(r[0], "tx_bytes at "));
  CHECK(has_flag(r[0], "beyond any link"));
  CHECK(r[0].rx_Bps == 4000);
}

}  // namespace
}  // namespace topoplan

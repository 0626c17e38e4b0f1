#include <doctest/doctest.h>

#include <algorithm>

#include "observe/link_compare.h"
#include "tests/support.h"

using namespace topoplan;

namespace {

// One port of h001/nic0 (50 GB/s each way) whose transmit side the job loads with `bytes_per_step`
// in the backward phase, observed at `tx_GBps`.
struct Case {
  Cluster c = test::load_cluster("dgx-h100:2");
  PortLink port = *port_find(c, "h001/nic0", nullptr);
  std::unordered_map<EdgeId, PhaseBytes> bytes;
  std::array<double, kPhases> phase_us{1e6, 1e6, 0, 0};  // forward 1 s, backward 1 s
  ObserveOptions opt;
  PortRate rate;
  Case(double bytes_per_step, double tx_GBps) {
    if (bytes_per_step > 0) bytes[port.tx][static_cast<size_t>(Phase::backward)] = bytes_per_step;
    opt.step_s = opt.model_step_s = 2;
    rate.key = "h001/nic0";
    rate.window_s = 60;
    rate.tx_Bps = tx_GBps * 1e9;
    rate.rx_Bps = 0;
  }
  LinkObservation tx() const { return observe_links(c, {rate}, {port}, bytes, phase_us, opt).at(0); }
  LinkObservation rx() const { return observe_links(c, {rate}, {port}, bytes, phase_us, opt).at(1); }
};

bool has(const LinkObservation& o, LinkVerdict v) {
  return std::find(o.verdicts.begin(), o.verdicts.end(), v) != o.verdicts.end();
}

}  // namespace

TEST_CASE("link_compare: observed beside predicted, per direction") {
  Case k(20e9, 10);  // 20 GB a step of 2 s: 10 GB/s on average, 20 GB/s in the backward phase
  const LinkObservation tx = k.tx();
  CHECK(tx.edge == k.port.tx);
  CHECK(tx.transmit);
  CHECK(tx.predicted_GBps == doctest::Approx(10));
  CHECK(tx.predicted_peak_GBps == doctest::Approx(20));
  CHECK(tx.peak_phase == Phase::backward);
  CHECK(*tx.ratio() == doctest::Approx(1));
  CHECK(tx.verdicts.empty());
  const LinkObservation rx = k.rx();
  CHECK(rx.edge == Cluster::reverse(k.port.tx));
  CHECK(rx.predicted_GBps == 0);
  CHECK(rx.verdicts.empty());  // idle and observed idle
  // A measured step twice the model's halves the predicted rate and stretches the phases: the
  // same counters are now twice the prediction, flagged past a tolerance of 1.5, not of 2.
  k.opt.step_s = 4;
  CHECK(k.tx().predicted_GBps == doctest::Approx(5));
  CHECK(k.tx().predicted_peak_GBps == doctest::Approx(10));
  CHECK(*k.tx().ratio() == doctest::Approx(2));
  CHECK(k.tx().verdicts.empty());
  k.opt.tolerance = 1.5;
  CHECK(has(k.tx(), LinkVerdict::above_prediction));
}

TEST_CASE("link_compare: each verdict, and only where it holds") {
  CHECK(has(Case(20e9, 30).tx(), LinkVerdict::above_prediction));        // 3x
  CHECK_FALSE(has(Case(20e9, 15).tx(), LinkVerdict::above_prediction));  // 1.5x, within 2x
  CHECK(has(Case(20e9, 4).tx(), LinkVerdict::below_prediction));
  CHECK(has(Case(0, 5).tx(), LinkVerdict::busy_not_predicted));
  CHECK(Case(0, 0.2).tx().verdicts.empty());  // under 1% of 50 GB/s: idle
  CHECK(has(Case(20e9, 60).tx(), LinkVerdict::above_line_rate));
  // Tiny predictions are not flagged for a gap below 1% of the line rate.
  CHECK(Case(0.02e9, 0.1).tx().verdicts.empty());
  Case hot(60e9, 30);  // the job's backward phase at 60% of the link
  hot.rate.tx_discards = 12;
  CHECK(has(hot.tx(), LinkVerdict::congestion_foreseen));
  CHECK(hot.rx().verdicts.empty());  // discards count for the transmit side
  Case cool(2e9, 1);
  cool.rate.xmit_wait = 1000;
  CHECK(has(cool.tx(), LinkVerdict::congestion_unforeseen));
  Case bad(20e9, 10);
  bad.rate.symbol_errors = 3;
  CHECK(has(bad.rx(), LinkVerdict::errors));
  CHECK_FALSE(has(bad.tx(), LinkVerdict::errors));
  // A direction without a rate (a reset counter) is judged on nothing but its errors.
  Case reset(20e9, 10);
  reset.rate.tx_Bps.reset();
  reset.rate.flags.push_back("tx_bytes went backwards (counter reset?)");
  CHECK_FALSE(reset.tx().observed_GBps);
  CHECK_FALSE(reset.tx().ratio());
  CHECK(reset.tx().verdicts.empty());
  CHECK(reset.tx().counter_flags.size() == 1);
}

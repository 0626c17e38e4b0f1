// Port counter files as topoplan reads them (perfquery, Prometheus text, CSV), and the rates made
// from them. The input is one file, or two separated by a form feed ("\f": before, then after).
// Every sample read has ports with a key and a byte counter, times and windows in range; every rate
// is finite and >= 0, made over a positive window unless flagged as in one sample only.
#include <cmath>

#include "base/limits.h"
#include "fuzz/fuzz.h"
#include "observe/counters.h"

using namespace topoplan;

namespace {

void check_sample(const CounterSample& s) {
  if (s.ports.empty()) fuzz::violated("a sample read without a port");
  for (const PortCounters& p : s.ports) {
    if (p.key.empty()) fuzz::violated("a port without a key");
    if (!p.tx_bytes && !p.rx_bytes) fuzz::violated("a port without transmit or receive bytes", p.key);
    if (p.time_s && !(*p.time_s >= 0 && *p.time_s <= limits::kMaxSeconds)) fuzz::violated("a time out of range", p.key);
    if ((s.format == CounterFormat::csv) != p.window_s.has_value())
      fuzz::violated("a window outside CSV, or a CSV row without one");
    if (p.window_s && !(*p.window_s > 0 && *p.window_s <= limits::kMaxSeconds))
      fuzz::violated("a window out of range", p.key);
    if (p.line < 1) fuzz::violated("a port without its line", p.key);
    for (const auto* c : {&p.tx_bytes, &p.rx_bytes, &p.tx_discards, &p.rx_discards, &p.tx_errors, &p.rx_errors,
                          &p.xmit_wait, &p.link_downed, &p.symbol_errors, &p.ecn_marked, &p.pfc_pause})
      if (*c && ((*c)->bits != 8 && (*c)->bits != 16 && (*c)->bits != 32 && (*c)->bits != 64))
        fuzz::violated("a counter of odd width");
  }
}

void check_rates(const Result<std::vector<PortRate>>& rates) {
  if (!fuzz::ok_or_explained(rates)) return;
  for (const PortRate& r : *rates) {
    const bool alone = !r.flags.empty() && r.flags.front() == "only in one sample";
    if (!std::isfinite(r.window_s) || (alone ? r.window_s != 0 : !(r.window_s > 0)))
      fuzz::violated("a rate over a bad window", r.key);
    for (const auto* v : {&r.tx_Bps, &r.rx_Bps, &r.tx_discards, &r.rx_discards, &r.tx_errors, &r.rx_errors,
                          &r.xmit_wait, &r.link_downed, &r.symbol_errors, &r.ecn_marked, &r.pfc_pause})
      if (*v && !(std::isfinite(**v) && **v >= 0)) fuzz::violated("a rate or count not finite and >= 0", r.key);
    for (const auto* v : {&r.tx_Bps, &r.rx_Bps})
      if (*v && **v > limits::kMaxRateGBps * 1e9) fuzz::violated("a byte rate beyond any link", r.key);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = fuzz::text(data, size);
  const size_t split = text.find('\f');
  std::vector<CounterSample> samples;
  for (const std::string& part : split == std::string::npos
                                     ? std::vector<std::string>{text}
                                     : std::vector<std::string>{text.substr(0, split), text.substr(split + 1)}) {
    Result<CounterSample> s = counters_parse(part, samples.empty() ? "before.txt" : "after.txt");
    if (!fuzz::ok_or_explained(s)) return 0;
    check_sample(*s);
    samples.push_back(std::move(*s));
  }
  check_rates(counter_rates(samples, std::nullopt));
  check_rates(counter_rates(samples, 10.0));
  return 0;
}

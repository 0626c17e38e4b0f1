// Fabric port counters in the forms operators already collect, and the step from samples of
// cumulative counters to a rate per port, so measured link load can be set beside a plan's.
//   perfquery   infiniband-diags `perfquery -x` (PortCountersExtended, 64-bit) and plain `perfquery`
//               (PortCounters: 32-bit data counters, 16- and 8-bit error counters, all of which stop
//               at their maximum: "IB semantics is to cap counters", perfquery.c). Headers as
//               linux-rdma/rdma-core infiniband-diags/perfquery.c prints them, names from
//               libibmad/fields.c, "Lid N" from libibmad/portid.c portid2str; the older names
//               (XmtData, RcvData ...) are read too.
//   prometheus  the text exposition format 0.0.4 (prometheus.io/docs/instrumenting/exposition_formats)
//               as node_exporter's netdev and infiniband collectors write it (collector/netdev_common.go,
//               collector/infiniband_linux.go), scraped directly or through /federate.
//   csv         link,window_s,tx_bytes,rx_bytes,discards,ecn_marked,pfc_pause: each row already a
//               delta over its window, from switch telemetry or a script.
// docs/counters.md has an example of each, the keys, the rules for times and every error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace topoplan {

// The formats counters.cc has a reader for, one table row each.
enum class CounterFormat : uint8_t { perfquery, prometheus, csv };
std::string_view to_string(CounterFormat f);  // the row's name: "perfquery"

// "perfquery output, Prometheus text (node_exporter) or CSV windows": what --counters reads.
std::string counter_formats_help();

// One counter as its source keeps it. The value stays a whole number so that a 64-bit counter
// that wrapped is undone exactly (a double steps by 2048 near 2^64).
struct CounterValue {
  uint64_t value = 0;      // in the field's unit (bytes for tx/rx_bytes), modulo 2^64
  int bits = 64;           // the source counter's width
  int unit = 1;            // field units per count: 4 for IB data counters, which count 4-byte words
  bool saturates = false;  // stops at 2^bits-1 counts (IBA PortCounters) instead of wrapping
  bool saturated() const { return saturates && bits < 64 && value == ((uint64_t{1} << bits) - 1) * unit; }
};

// One port in one sample. Cumulative counters, except in a CSV row, where they are the deltas over
// window_s. A field is absent when the source does not have it.
struct PortCounters {
  std::string key;                 // "lid 12 port 1", "h001 mlx5_0 1", "h001 eth0", or the CSV's link verbatim
  std::optional<double> time_s;    // unix seconds when sampled: '# time:' line or Prometheus timestamp
  std::optional<double> window_s;  // CSV only: the row's values are deltas over this many seconds
  std::optional<CounterValue> tx_bytes, rx_bytes;
  std::optional<CounterValue> tx_discards, rx_discards;    // packets dropped (congestion, port down)
  std::optional<CounterValue> tx_errors, rx_errors;        // packets with errors (IB: PortRcvErrors)
  std::optional<CounterValue> xmit_wait;                   // IB ticks with data to send and no credit
  std::optional<CounterValue> link_downed, symbol_errors;  // IB link flaps, physical-layer errors
  std::optional<CounterValue> ecn_marked, pfc_pause;       // RoCE congestion marks, pause frames
  int line = 0;  // where it was read: the perfquery block's header, the first Prometheus series, the CSV row
};

struct CounterSample {
  std::string source;  // the file, for errors and PortRate::where
  CounterFormat format = CounterFormat::perfquery;
  std::vector<PortCounters> ports;  // in the order read
};

// The format is told by the content, not the file name. A port appears once per time in a sample:
// perfquery files may hold several '# time:' moments (a loop appending to one log), and a plain and
// an extended block of one port at one time are merged (the wider counter kept). Errors say
// "file:line: what was expected"; text past limits::kMaxFileBytes is refused.
Result<CounterSample> counters_parse(std::string_view text, const std::string& where);
Result<CounterSample> counters_load(const std::string& path);

struct PortRate {
  std::string key;
  double window_s = 0;                   // seconds between the readings used; 0 for a port in one sample only
  std::optional<double> tx_Bps, rx_Bps;  // bytes per second
  // Counts in the window (deltas, not per second).
  std::optional<double> tx_discards, rx_discards, tx_errors, rx_errors, xmit_wait, link_downed, symbol_errors,
      ecn_marked, pfc_pause;
  // Why a field is absent or was adjusted: "tx_bytes wrapped at 2^64", "rx_bytes went backwards
  // (counter reset?)", "tx_bytes saturated at 2^32-1", "only in one sample" ...
  std::vector<std::string> flags;
  std::string where;  // "before.txt:3 -> after.txt:3": the first and last readings used
};

// A rate per port from samples of one format, ports in the order they first appear.
// Cumulative samples (perfquery, Prometheus): a port's readings are ordered by time and the rate is
// last minus first over the time between them; every consecutive pair is checked for resets.
//  - Times come from the samples ('# time:' lines, Prometheus timestamps): all readings have one or
//    none does. With times, files may be given in any order and any grouping (one per switch, a loop
//    appended to one log). Without times, the first half of `samples` is one moment and the second
//    half the next, `interval_s` later (an error without it): one file per switch before, then the
//    same files after; a port twice in one half is an error.
//  - A counter that decreased: a 64-bit one wrapped when the modular delta is at most 2^62 and
//    comes at under 1e15 per second (limits::kMaxRateGBps in bytes); it is counted and flagged.
//    Otherwise it was reset. A 32-bit (or narrower) IBA counter at its maximum saturated. A reset
//    and a saturation leave the field absent with a flag: never a silent wrong rate.
// CSV samples are windows already: each row is a rate by itself, and a link in two rows is an error.
// Errors: no samples, formats mixed, times on some readings only, no times and no interval, an
// interval or a window of zero or less (one port twice at the same time), a port twice in one half.
Result<std::vector<PortRate>> counter_rates(const std::vector<CounterSample>& samples,
                                            std::optional<double> interval_s = std::nullopt);

}  // namespace topoplan

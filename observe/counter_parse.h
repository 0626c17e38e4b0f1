// Internals of observe/counters: what the three format readers (counters_perfquery,
// counters_prometheus, counters_csv) and the rate step (counter_rates) share.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "base/units.h"
#include "base/words.h"
#include "observe/counters.h"

namespace topoplan::counter_parse {

bool starts_with(std::string_view s, std::string_view prefix);
// How a piece of input is quoted in an error: trimmed, cut at 80 characters, control characters
// as '?', so a message stays one readable line whatever the bytes.
std::string shown(std::string_view s);
std::optional<double> number(std::string_view s);
std::optional<uint64_t> whole(std::string_view s);
// A value read as a double (Prometheus, CSV) as a whole count: finite, >= 0, below 2^64, rounded
// to the nearest whole number (doubles this large have no fraction; below 2^53 a fraction is noise).
std::optional<uint64_t> count_of(double v);
std::string why_not_count(double v);
// "# time: 1767225600" or "# timestamp: 1767225600.25" (date +%s, date +%s.%N): nullopt when the
// line is not a time line; an error when it is one with a bad value.
std::optional<Result<double>> time_line(std::string_view line, const std::string& at);

// Lines with their 1-based numbers; "\r\n" ends a line as "\n" does (trim drops the '\r').
class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {}
  bool next(std::string_view& line) {
    if (at_ >= text_.size()) return false;
    const size_t end = std::min(text_.find('\n', at_), text_.size());
    line = text_.substr(at_, end - at_);
    at_ = end + 1;
    ++number_;
    return true;
  }
  int number() const { return number_; }

 private:
  std::string_view text_;
  size_t at_ = 0;
  int number_ = 0;
};

using CounterField = std::optional<CounterValue> PortCounters::*;
using RateField = std::optional<double> PortRate::*;

struct FieldInfo {
  std::string_view name;
  CounterField counter;
  RateField rate;
  bool bytes;  // a rate in bytes per second rather than a count per window
};

inline constexpr FieldInfo kFields[] = {
    {"tx_bytes", &PortCounters::tx_bytes, &PortRate::tx_Bps, true},
    {"rx_bytes", &PortCounters::rx_bytes, &PortRate::rx_Bps, true},
    {"tx_discards", &PortCounters::tx_discards, &PortRate::tx_discards, false},
    {"rx_discards", &PortCounters::rx_discards, &PortRate::rx_discards, false},
    {"tx_errors", &PortCounters::tx_errors, &PortRate::tx_errors, false},
    {"rx_errors", &PortCounters::rx_errors, &PortRate::rx_errors, false},
    {"xmit_wait", &PortCounters::xmit_wait, &PortRate::xmit_wait, false},
    {"link_downed", &PortCounters::link_downed, &PortRate::link_downed, false},
    {"symbol_errors", &PortCounters::symbol_errors, &PortRate::symbol_errors, false},
    {"ecn_marked", &PortCounters::ecn_marked, &PortRate::ecn_marked, false},
    {"pfc_pause", &PortCounters::pfc_pause, &PortRate::pfc_pause, false},
};

// One sample's ports by key and time, so a port read twice at one time is found (and merged or
// refused) without a quadratic search.
class PortIndex {
 public:
  // The port for (key, time), and whether it is new.
  std::pair<PortCounters*, bool> at(CounterSample& sample, const std::string& key, std::optional<double> time_s,
                                    int line) {
    std::string id = key;
    id += '\x1f';
    if (time_s) id += format_exact(*time_s);
    const auto [it, added] = index_.try_emplace(std::move(id), sample.ports.size());
    if (added) {
      PortCounters p;
      p.key = key;
      p.time_s = time_s;
      p.line = line;
      sample.ports.push_back(std::move(p));
    }
    return {&sample.ports[it->second], added};
  }

 private:
  std::unordered_map<std::string, size_t> index_;
};

// Whether a line, trimmed, the first that says something (not blank, not a '# time:' line), tells
// the format: perfquery's block header; a Prometheus '# HELP', '# TYPE' or series; a CSV header
// with a link column. Any other '#' line says nothing, and detection reads on.
bool perfquery_detect(std::string_view line);
bool prometheus_detect(std::string_view line);
bool csv_detect(std::string_view line);

// One reader per format; errors say "file:line: what was expected". counters.cc tables them.
Result<CounterSample> parse_perfquery(std::string_view text, const std::string& where);
Result<CounterSample> parse_prometheus(std::string_view text, const std::string& where);
Result<CounterSample> parse_csv(std::string_view text, const std::string& where);

}  // namespace topoplan::counter_parse

#include "observe/counters.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <unordered_map>
#include <utility>

#include "topology/formats/json_fields.h"
#include "topology/limits.h"
#include "topology/words.h"
#include "topology/suggest.h"
#include "topology/units.h"

namespace topoplan {
namespace {

// ---- text ------------------------------------------------------------------------------------

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// How a piece of input is quoted in an error: trimmed, cut at 80 characters, control characters
// as '?', so a message stays one readable line whatever the bytes.
std::string shown(std::string_view s) {
  s = trim(s);
  std::string out(s.substr(0, 80));
  for (char& c : out)
    if (blank(c) && c != ' ') c = '?';
  return "'" + out + (s.size() > 80 ? "...'" : "'");
}

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

std::optional<double> number(std::string_view s) {
  // Go's ParseFloat (Prometheus) takes "+1" and "+Inf"; from_chars takes neither.
  if (s.size() > 1 && s.front() == '+' && s[1] != '-' && s[1] != '+') s.remove_prefix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<uint64_t> whole(std::string_view s) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

constexpr double kTwoTo64 = 18446744073709551616.0;

// A value read as a double (Prometheus, CSV) as a whole count: finite, >= 0, below 2^64, rounded
// to the nearest whole number (doubles this large have no fraction; below 2^53 a fraction is noise).
std::optional<uint64_t> count_of(double v) {
  if (!std::isfinite(v) || v < 0 || v >= kTwoTo64) return std::nullopt;
  return static_cast<uint64_t>(std::nearbyint(v));
}

std::string why_not_count(double v) {
  if (std::isnan(v)) return "NaN is not a counter value";
  if (std::isinf(v)) return "an infinite value is not a counter value";
  if (v < 0) return "a counter is never negative";
  return "above 2^64-1, the largest 64-bit counter";
}

// "# time: 1767225600" or "# timestamp: 1767225600.25" (date +%s, date +%s.%N): nullopt when the
// line is not a time line; an error when it is one with a bad value.
std::optional<Result<double>> time_line(std::string_view line, const std::string& at) {
  std::optional<std::string_view> rest;
  for (std::string_view prefix : {"# time:", "# timestamp:"})
    if (starts_with(line, prefix)) rest = trim(line.substr(prefix.size()));
  if (!rest) return std::nullopt;
  const std::optional<double> t = number(*rest);
  if (!t || !std::isfinite(*t) || *t < 0 || *t > limits::kMaxSeconds)
    return Result<double>(Error{at + ": expected '# time: <unix seconds>' (date +%s), got " + shown(*rest)});
  return Result<double>(*t);
}

// ---- fields ----------------------------------------------------------------------------------

using CounterField = std::optional<CounterValue> PortCounters::*;
using RateField = std::optional<double> PortRate::*;

struct FieldInfo {
  std::string_view name;
  CounterField counter;
  RateField rate;
  bool bytes;  // a rate in bytes per second rather than a count per window
};

constexpr FieldInfo kFields[] = {
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

// ---- perfquery -------------------------------------------------------------------------------

// libibmad/fields.c: PortCounters (IB_PC_*) and PortCountersExtended (IB_PC_EXT_*) names, with the
// widths of the plain attribute; the extended attribute's are all 64 bits. The second name is the
// one older libibmad printed for the plain attribute (before the IBA names; collectd and
// tacc_stats parse both).
struct PerfqueryName {
  std::string_view name, old_name;
  CounterField field;
  int plain_bits;
  int unit;
};
constexpr PerfqueryName kPerfqueryNames[] = {
    {"PortXmitData", "XmtData", &PortCounters::tx_bytes, 32, 4},  // 4-byte words (IBA: octets / 4)
    {"PortRcvData", "RcvData", &PortCounters::rx_bytes, 32, 4},
    {"PortXmitDiscards", "XmtDiscards", &PortCounters::tx_discards, 16, 1},
    {"PortRcvErrors", "RcvErrors", &PortCounters::rx_errors, 16, 1},
    {"PortXmitWait", "XmtWait", &PortCounters::xmit_wait, 32, 1},
    {"LinkDownedCounter", "LinkDowned", &PortCounters::link_downed, 8, 1},
    {"SymbolErrorCounter", "SymbolErrors", &PortCounters::symbol_errors, 16, 1},
};

const PerfqueryName* perfquery_name(std::string_view name) {
  for (const PerfqueryName& n : kPerfqueryNames)
    if (name == n.name || name == n.old_name) return &n;
  return nullptr;
}

enum class Block { none, plain, extended, other };

// "# Port counters: Lid 12 port 1 (CapMask: 0x5A00)" and "# Port extended counters: ..."; the
// other blocks perfquery prints ("# %s counters: ..." from common_func, such as PortXmitDataSL or
// SwPortVLCongestion, and "# PortSamplesControl: ...") are skipped.
Block block_of(std::string_view line) {
  if (starts_with(line, "# Port counters:")) return Block::plain;
  if (starts_with(line, "# Port extended counters:")) return Block::extended;
  const std::string_view head = line.substr(0, line.find(':'));
  if (head.size() < line.size() && starts_with(head, "# ") &&
      (head.ends_with(" counters") || head == "# PortSamplesControl"))
    return Block::other;
  return Block::none;
}

// The port of a header: "Lid 12 port 1" -> "lid 12 port 1" (a Gid after the lid is dropped: a LID
// names a port in its subnet); a directed-route or local port keeps perfquery's words.
std::optional<std::string> perfquery_key(std::string_view header) {
  std::string_view rest = trim(header.substr(header.find(':') + 1));
  if (rest.ends_with(")")) {
    const size_t open = rest.rfind(" (");
    if (open == std::string_view::npos) return std::nullopt;
    rest = trim(rest.substr(0, open));
  }
  const size_t at = rest.rfind(" port ");
  if (at == std::string_view::npos) return std::nullopt;
  const std::optional<uint64_t> port = whole(trim(rest.substr(at + 6)));
  std::string_view id = trim(rest.substr(0, at));
  if (!port || *port > 255 || id.empty()) return std::nullopt;  // PortSelect is 8 bits; 255 is -a's "all ports"
  if (starts_with(id, "Lid ")) {
    std::string_view lid = id.substr(4);
    lid = lid.substr(0, lid.find(' '));
    const std::optional<uint64_t> n = whole(lid);
    if (!n || *n > 0xffff) return std::nullopt;
    return "lid " + std::to_string(*n) + " port " + std::to_string(*port);
  }
  return std::string(id) + " port " + std::to_string(*port);
}

Result<CounterSample> parse_perfquery(std::string_view text, const std::string& where) {
  CounterSample sample{where, CounterFormat::perfquery, {}};
  PortIndex index;
  std::optional<double> time_s;
  Block block = Block::none;
  PortCounters current;  // the block being read
  int block_line = 0;
  std::vector<uint8_t> kinds;  // per port of the sample: the blocks read for it (1 plain, 2 extended)
  std::vector<std::string_view> seen;  // counter names in this block

  // A block is kept when it ends: it must have a data counter, and it merges with a block of the
  // other kind for the same port and time (perfquery -x for data, plain perfquery for errors).
  auto end_block = [&]() -> std::optional<Error> {
    if (block != Block::plain && block != Block::extended) return std::nullopt;
    const std::string at = where + ":" + std::to_string(block_line);
    if (!current.tx_bytes && !current.rx_bytes)
      return Error{at + ": the block for " + current.key + " has no PortXmitData or PortRcvData (no data counters)"};
    auto [port, added] = index.at(sample, current.key, time_s, block_line);
    const uint8_t kind = block == Block::plain ? 1 : 2;
    kinds.resize(sample.ports.size());
    uint8_t& had = kinds[static_cast<size_t>(port - sample.ports.data())];
    if (had & kind)
      return Error{at + ": " + current.key + " again (first at line " + std::to_string(port->line) +
                   "): a file holds each port once per '# time:'"};
    had |= kind;
    if (!added) {
      for (const FieldInfo& f : kFields) {
        auto &kept = port->*f.counter, &read = current.*f.counter;
        if (read && (!kept || read->bits > kept->bits)) kept = read;
      }
    } else {
      for (const FieldInfo& f : kFields) port->*f.counter = current.*f.counter;
    }
    return std::nullopt;
  };

  Lines lines(text);
  std::string_view raw;
  while (lines.next(raw)) {
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    const std::string at = where + ":" + std::to_string(lines.number());
    if (line.front() == '#') {
      const std::optional<Result<double>> t = time_line(line, at);
      const Block next = t ? Block::none : block_of(line);
      if (t || next != Block::none) {
        if (std::optional<Error> e = end_block()) return *e;
        block = next;
      }
      if (t) {
        if (!*t) return Error{t->error()};
        time_s = **t;
      } else if (next == Block::plain || next == Block::extended) {
        std::optional<std::string> key = perfquery_key(line);
        if (!key)
          return Error{at + ": expected '# Port counters: Lid <lid> port <port> (CapMask: ...)', got " + shown(line)};
        current = PortCounters{};
        current.key = std::move(*key);
        block_line = lines.number();
        seen.clear();
      }
      continue;  // other comments, in a block or not, are the operator's
    }
    if (block == Block::other) continue;
    if (block == Block::none)
      return Error{at + ": expected a '# Port counters:' or '# Port extended counters:' header before " + shown(line)};
    // "PortXmitData:....................1234": the name, a colon, dots up to column 33, the value.
    const size_t colon = line.find(':');
    const std::string_view name = line.substr(0, colon);
    const bool named = colon != std::string_view::npos && !name.empty() &&
                       std::all_of(name.begin(), name.end(),
                                   [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
    std::string_view value = named ? line.substr(colon + 1) : std::string_view{};
    while (!value.empty() && value.front() == '.') value.remove_prefix(1);
    value = trim(value);
    if (!named || value.empty() || std::any_of(value.begin(), value.end(), blank))
      return Error{at + ": expected 'Name:....value' in the block for " + current.key + ", got " + shown(line)};
    const PerfqueryName* known = perfquery_name(name);
    if (!known) continue;  // PortSelect, CounterSelect (hex), packet counts ...: not used here
    if (std::find(seen.begin(), seen.end(), known->name) != seen.end())
      return Error{at + ": " + std::string(name) + " twice in the block for " + current.key};
    seen.push_back(known->name);
    const int bits = block == Block::extended ? 64 : known->plain_bits;
    const std::optional<uint64_t> n = whole(value);
    const std::string unit = known->unit == 4 ? "4-byte words" : "counts";
    if (!n)
      return Error{at + ": " + std::string(name) + ": expected a whole number of " + unit + ", got " + shown(value)};
    if (bits < 64 && *n > (uint64_t{1} << bits) - 1)
      return Error{at + ": " + std::string(name) + ": " + shown(value) + " is above 2^" + std::to_string(bits) +
                   "-1, the most a plain perfquery counter holds (was this perfquery -x output?)"};
    CounterValue c;
    c.value = *n * static_cast<uint64_t>(known->unit);  // modulo 2^64: deltas stay exact below 2^64 bytes
    c.bits = bits;
    c.unit = known->unit;
    c.saturates = bits < 64;  // IBA PortCounters stop at their maximum; the extended ones run on
    current.*known->field = c;
  }
  if (std::optional<Error> e = end_block()) return *e;
  if (sample.ports.empty()) return Error{where + ": no '# Port counters:' or '# Port extended counters:' block"};
  return sample;
}

// ---- Prometheus ------------------------------------------------------------------------------

// node_exporter's metrics for port counters. IB widths: the kernel's sysfs counters (and so
// node_exporter's) come from the PortCounters attribute, except the data counters, which are
// 64-bit when the HCA has PortCountersExtended and 32-bit (in words, times 4) when not
// (drivers/infiniband/core/sysfs.c get_counter_table). A value at such a counter's maximum is read
// as saturated; node_exporter's own fixture has port_transmit_wait at 4294967295.
struct PrometheusName {
  std::string_view name;
  CounterField field;
  int ib_bits;  // 0: not an IB PortCounters counter (netdev counters are 64-bit and wrap)
  int unit;
};
constexpr PrometheusName kPrometheusNames[] = {
    {"node_network_transmit_bytes_total", &PortCounters::tx_bytes, 0, 1},
    {"node_network_receive_bytes_total", &PortCounters::rx_bytes, 0, 1},
    {"node_network_transmit_drop_total", &PortCounters::tx_discards, 0, 1},
    {"node_network_receive_drop_total", &PortCounters::rx_discards, 0, 1},
    {"node_network_transmit_errs_total", &PortCounters::tx_errors, 0, 1},
    {"node_network_receive_errs_total", &PortCounters::rx_errors, 0, 1},
    {"node_infiniband_port_data_transmitted_bytes_total", &PortCounters::tx_bytes, 32, 4},
    {"node_infiniband_port_data_received_bytes_total", &PortCounters::rx_bytes, 32, 4},
    {"node_infiniband_port_discards_transmitted_total", &PortCounters::tx_discards, 16, 1},
    {"node_infiniband_port_discards_received_total", &PortCounters::rx_discards, 0, 1},
    {"node_infiniband_port_errors_received_total", &PortCounters::rx_errors, 16, 1},
    {"node_infiniband_port_transmit_wait_total", &PortCounters::xmit_wait, 32, 1},
    {"node_infiniband_link_downed_total", &PortCounters::link_downed, 8, 1},
    {"node_infiniband_symbol_error_total", &PortCounters::symbol_errors, 16, 1},
    {"node_infiniband_np_ecn_marked_roce_packets_received_total", &PortCounters::ecn_marked, 0, 1},
};

bool metric_char(char c, bool first) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':' ||
         (!first && std::isdigit(static_cast<unsigned char>(c)));
}
bool label_char(char c, bool first) { return c != ':' && metric_char(c, first); }

struct Series {
  std::string_view name;
  std::vector<std::pair<std::string, std::string>> labels;
  double value = 0;
  std::optional<int64_t> timestamp_ms;
};

// Series carry a handful of labels (node_exporter's: device, port; /federate adds instance and
// job); the bound keeps the duplicate check and the memory of one line small.
constexpr size_t kMaxLabels = 64;

// name [{label="value",...}] value [timestamp]: the text format's line, label values unescaped.
Result<Series> parse_series(std::string_view line, const std::string& at) {
  Series s;
  size_t i = 0;
  while (i < line.size() && metric_char(line[i], i == 0)) ++i;
  if (i == 0) return Error{at + ": expected a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*) at the start of " + shown(line)};
  s.name = line.substr(0, i);
  auto skip = [&] {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  };
  skip();
  if (i < line.size() && line[i] == '{') {
    ++i;
    for (;;) {
      skip();
      if (i < line.size() && line[i] == '}') break;
      const size_t begin = i;
      while (i < line.size() && label_char(line[i], i == begin)) ++i;
      if (i == begin) return Error{at + ": expected a label name or '}' in " + shown(line)};
      std::string label(line.substr(begin, i - begin));
      skip();
      if (i >= line.size() || line[i] != '=')
        return Error{at + ": expected '=' after label " + label + " in " + shown(line)};
      ++i;
      skip();
      if (i >= line.size() || line[i] != '"')
        return Error{at + ": expected '\"' to open label " + label + "'s value in " + shown(line)};
      ++i;
      std::string value;
      for (;; ++i) {
        if (i >= line.size())
          return Error{at + ": label " + label + "'s value is not closed with '\"' in " + shown(line)};
        if (line[i] == '"') break;
        if (line[i] != '\\') {
          value += line[i];
          continue;
        }
        // The format escapes exactly three characters; anything else after '\' is an error there too.
        const char e = ++i < line.size() ? line[i] : '\0';
        if (e != '\\' && e != '"' && e != 'n')
          return Error{at + ": label " + label + ": '\\" + std::string(1, blank(e) ? '?' : e) +
                       "' is not an escape (\\\\, \\\", \\n) in " + shown(line)};
        value += e == 'n' ? '\n' : e;
      }
      ++i;
      if (std::any_of(s.labels.begin(), s.labels.end(), [&](const auto& l) { return l.first == label; }))
        return Error{at + ": label " + label + " twice in " + shown(line)};
      if (s.labels.size() == kMaxLabels)
        return Error{at + ": more than " + std::to_string(kMaxLabels) + " labels in " + shown(line)};
      s.labels.emplace_back(std::move(label), std::move(value));
      skip();
      if (i < line.size() && line[i] == ',') {
        ++i;
        continue;
      }
      if (i < line.size() && line[i] == '}') break;
      return Error{at + ": expected ',' or '}' after label " + s.labels.back().first + " in " + shown(line)};
    }
    ++i;
  }
  std::vector<std::string_view> rest;
  for (size_t j = i; j < line.size() && rest.size() <= 2;) {  // a third word is already an error
    while (j < line.size() && (line[j] == ' ' || line[j] == '\t')) ++j;
    const size_t begin = j;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > begin) rest.push_back(line.substr(begin, j - begin));
  }
  if (rest.empty() || rest.size() > 2)
    return Error{at + ": expected 'name{labels} value [timestamp]', got " + shown(line)};
  const std::optional<double> v = number(rest[0]);
  if (!v) return Error{at + ": expected a number (or NaN, +Inf, -Inf) as the value, got " + shown(rest[0])};
  s.value = *v;
  if (rest.size() == 2) {
    int64_t ms = 0;
    const auto [end, ec] = std::from_chars(rest[1].data(), rest[1].data() + rest[1].size(), ms);
    if (ec != std::errc() || end != rest[1].data() + rest[1].size())
      return Error{at + ": expected a timestamp in whole milliseconds after the value, got " + shown(rest[1])};
    s.timestamp_ms = ms;
  }
  return s;
}

// name{label="value",...} as an error shows it.
std::string series_text(const Series& s) {
  std::string out(s.name);
  for (size_t i = 0; i < s.labels.size(); ++i)
    out += (i ? "," : "{") + s.labels[i].first + "=\"" + s.labels[i].second + "\"";
  return s.labels.empty() ? out : out + "}";
}

const std::string* label_of(const Series& s, std::string_view name) {
  for (const auto& [l, v] : s.labels)
    if (l == name) return &v;
  return nullptr;
}

// "h001:9100" -> "h001", "[fe80::1]:9100" -> "[fe80::1]"; a bare IPv6 address stays whole.
std::string_view instance_host(std::string_view instance) {
  const size_t colon = instance.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == instance.size()) return instance;
  const std::string_view port = instance.substr(colon + 1);
  if (!std::all_of(port.begin(), port.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return instance;
  const std::string_view host = instance.substr(0, colon);
  if (host.find(':') != std::string_view::npos && !(host.starts_with("[") && host.ends_with("]"))) return instance;
  return host;
}

Result<CounterSample> parse_prometheus(std::string_view text, const std::string& where) {
  CounterSample sample{where, CounterFormat::prometheus, {}};
  PortIndex index;
  std::optional<double> time_s;  // a '# time:' line, for series without their own timestamp
  Lines lines(text);
  std::string_view raw;
  // Per port of the sample, the line each field was read on, to name it when a series repeats.
  std::vector<std::array<int, std::size(kFields)>> field_lines;
  while (lines.next(raw)) {
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    const std::string at = where + ":" + std::to_string(lines.number());
    if (line.front() == '#') {
      if (std::optional<Result<double>> t = time_line(line, at)) {
        if (!*t) return Error{t->error()};
        time_s = **t;
      }
      continue;  // # HELP, # TYPE, # EOF (OpenMetrics) and comments
    }
    Result<Series> s = parse_series(line, at);
    if (!s) return Error{s.error()};
    const PrometheusName* known = nullptr;
    for (const PrometheusName& n : kPrometheusNames)
      if (s->name == n.name) known = &n;
    if (!known) continue;  // the exporter's other metrics
    const std::string series = series_text(*s);
    const std::optional<uint64_t> value = count_of(s->value);
    if (!value) return Error{at + ": " + shown(series) + ": " + why_not_count(s->value)};
    const std::string* device = label_of(*s, "device");
    if (!device || device->empty()) return Error{at + ": " + shown(series) + ": expected a non-empty device label"};
    const std::string* port = label_of(*s, "port");
    const std::string* instance = label_of(*s, "instance");
    std::string key;
    if (instance && !instance->empty()) key = std::string(instance_host(*instance)) + " ";
    key += *device;
    if (port && !port->empty()) key += " " + *port;
    std::optional<double> t = time_s;
    if (s->timestamp_ms) {
      const double seconds = static_cast<double>(*s->timestamp_ms) / 1000;
      if (seconds < 0 || seconds > limits::kMaxSeconds)
        return Error{at + ": " + shown(series) + ": timestamp " + std::to_string(*s->timestamp_ms) +
                     " ms is not a time from 1970 on (Prometheus timestamps are unix milliseconds)"};
      t = seconds;
    }
    PortCounters* p = index.at(sample, key, t, lines.number()).first;
    const size_t slot = static_cast<size_t>(p - sample.ports.data());
    field_lines.resize(sample.ports.size());
    const size_t field =
        static_cast<size_t>(std::find_if(std::begin(kFields), std::end(kFields),
                                         [&](const FieldInfo& f) { return f.counter == known->field; }) -
                            std::begin(kFields));
    int& first = field_lines[slot][field];
    if (first)
      return Error{at + ": " + shown(series) + ": " + key + "'s " + std::string(kFields[field].name) +
                   " again (first at line " + std::to_string(first) + "): a file holds each series once per time"};
    first = lines.number();
    CounterValue c;
    c.value = *value;
    const uint64_t max = known->ib_bits ? ((uint64_t{1} << known->ib_bits) - 1) * known->unit : 0;
    if (known->ib_bits && *value == max) {
      c.bits = known->ib_bits;
      c.unit = known->unit;
      c.saturates = true;
    }
    p->*known->field = c;
  }
  if (sample.ports.empty())
    return Error{where +
                 ": no port counters: none of node_exporter's node_network_*_bytes_total or "
                 "node_infiniband_port_data_*_bytes_total series"};
  for (const PortCounters& p : sample.ports)
    if (!p.tx_bytes && !p.rx_bytes)
      return Error{where + ":" + std::to_string(p.line) + ": " + p.key +
                   " has counters but no transmit or receive bytes"};
  return sample;
}

// ---- CSV -------------------------------------------------------------------------------------

// Fields split at commas; a field in double quotes may hold commas and "" for a quote (RFC 4180).
// At most `max` + 1 fields: a row with more is wrong already, and a line of commas stays cheap.
std::optional<std::vector<std::string>> csv_fields(std::string_view line, size_t max) {
  std::vector<std::string> out;
  size_t i = 0;
  for (;;) {
    if (out.size() > max) return out;
    std::string field;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i < line.size() && line[i] == '"') {
      for (++i;; ++i) {
        if (i >= line.size()) return std::nullopt;
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field += '"';
            ++i;
            continue;
          }
          ++i;
          break;
        }
        field += line[i];
      }
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      if (i < line.size() && line[i] != ',') return std::nullopt;
    } else {
      const size_t end = std::min(line.find(',', i), line.size());
      field = std::string(trim(line.substr(i, end - i)));
      i = end;
    }
    out.push_back(std::string(trim(field)));
    if (i >= line.size()) return out;
    ++i;  // the comma
  }
}

// The CSV's columns: link and window_s, then counters by their field name; "discards" is a
// switch's egress drop count (tx_discards).
std::optional<CounterField> csv_counter(std::string_view column) {
  if (column == "discards") return &PortCounters::tx_discards;
  for (const FieldInfo& f : kFields)
    if (column == f.name) return f.counter;
  return std::nullopt;
}

constexpr size_t kMaxColumns = std::size(kFields) + 3;  // link, window_s, discards

std::vector<std::string> csv_columns() {
  std::vector<std::string> names = {"link", "window_s", "discards"};
  for (const FieldInfo& f : kFields) names.emplace_back(f.name);
  return names;
}

Result<CounterSample> parse_csv(std::string_view text, const std::string& where) {
  CounterSample sample{where, CounterFormat::csv, {}};
  Lines lines(text);
  std::string_view raw;
  std::vector<std::string> header;
  int header_line = 0;
  std::vector<std::optional<CounterField>> counters;
  size_t link = 0, window = 0;
  std::unordered_map<std::string, int> rows;  // link -> line
  while (lines.next(raw)) {
    const std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    const std::string at = where + ":" + std::to_string(lines.number());
    // The header has at most one column per name it may hold.
    std::optional<std::vector<std::string>> fields = csv_fields(line, header.empty() ? kMaxColumns : header.size());
    if (!fields) return Error{at + ": a quoted field is not closed, or text follows its closing quote: " + shown(line)};
    if (header.empty()) {
      header = std::move(*fields);
      header_line = lines.number();
      for (std::string& name : header) name = lower(name);
      bool has_link = false, has_window = false, has_bytes = false;
      for (size_t c = 0; c < header.size(); ++c) {
        const std::string& name = header[c];
        const auto before = header.begin() + static_cast<ptrdiff_t>(c);
        if (std::find(header.begin(), before, name) != before)
          return Error{at + ": column " + shown(name) + " twice"};
        if (name == "tx_discards" && std::find(header.begin(), header.end(), "discards") != header.end())
          return Error{at + ": columns 'discards' and 'tx_discards' both: discards is tx_discards"};
        const std::optional<CounterField> counter = csv_counter(name);
        if (name == "link") link = c, has_link = true;
        else if (name == "window_s") window = c, has_window = true;
        else if (!counter) return Error{at + ": unknown column " + shown(name) + did_you_mean(name, csv_columns())};
        has_bytes = has_bytes || name == "tx_bytes" || name == "rx_bytes";
        counters.push_back(counter);
      }
      if (!has_link) return Error{at + ": the header has no 'link' column (link,window_s,tx_bytes,rx_bytes,...)"};
      if (!has_window) return Error{at + ": the header has no 'window_s' column: the seconds each row's deltas cover"};
      if (!has_bytes) return Error{at + ": the header has neither a 'tx_bytes' nor an 'rx_bytes' column"};
      continue;
    }
    // The header again: CSV files concatenated with cat.
    if (std::equal(fields->begin(), fields->end(), header.begin(), header.end(),
                   [](const std::string& a, const std::string& b) { return lower(a) == b; }))
      continue;
    if (fields->size() != header.size())
      return Error{at + ": " +
                   (fields->size() > header.size() ? "more than " + std::to_string(header.size())
                                                   : std::to_string(fields->size())) +
                   " fields, but the header (line " + std::to_string(header_line) + ") has " +
                   std::to_string(header.size()) + " columns"};
    PortCounters p;
    p.line = lines.number();
    p.key = (*fields)[link];
    if (p.key.empty()) return Error{at + ": link: empty; each row names the link its counters are for"};
    const std::optional<double> w = number((*fields)[window]);
    if (!w || !std::isfinite(*w) || *w <= 0 || *w > limits::kMaxSeconds)
      return Error{at + ": window_s: expected the seconds the row covers, a number > 0, got " +
                   shown((*fields)[window])};
    p.window_s = *w;
    for (size_t c = 0; c < header.size(); ++c) {
      if (!counters[c] || (*fields)[c].empty()) continue;  // an empty field: the source lacks it
      const std::optional<double> v = number((*fields)[c]);
      const std::optional<uint64_t> n = v ? count_of(*v) : std::nullopt;
      if (!n)
        return Error{at + ": " + header[c] + ": expected a count >= 0, got " + shown((*fields)[c]) +
                     (v ? " (" + why_not_count(*v) + ")" : "")};
      p.*(*counters[c]) = CounterValue{*n, 64, 1, false};
    }
    if (!p.tx_bytes && !p.rx_bytes) return Error{at + ": " + shown(p.key) + " has neither tx_bytes nor rx_bytes"};
    const auto [first, added] = rows.try_emplace(p.key, p.line);
    if (!added)
      return Error{at + ": link " + shown(p.key) + " again (first at line " + std::to_string(first->second) + ")"};
    sample.ports.push_back(std::move(p));
  }
  if (header.empty()) return Error{where + ": empty: no CSV header"};
  if (sample.ports.empty()) return Error{where + ":" + std::to_string(header_line) + ": a header and no rows"};
  return sample;
}

// ---- detection -------------------------------------------------------------------------------

// By the first line that says: perfquery's header, Prometheus' HELP/TYPE or a series, a CSV header
// with a link column. '# time:' lines and blank lines say nothing.
std::optional<CounterFormat> detect(std::string_view text, std::string_view* first) {
  Lines lines(text);
  std::string_view raw;
  while (lines.next(raw)) {
    const std::string_view line = trim(raw);
    if (line.empty() || starts_with(line, "# time:") || starts_with(line, "# timestamp:")) continue;
    if (first && first->empty() && line.front() != '#') *first = line;
    if (block_of(line) == Block::plain || block_of(line) == Block::extended) return CounterFormat::perfquery;
    if (starts_with(line, "# HELP ") || starts_with(line, "# TYPE ")) return CounterFormat::prometheus;
    if (line.front() == '#') continue;
    size_t i = 0;
    while (i < line.size() && metric_char(line[i], i == 0)) ++i;
    if (i > 0 && i < line.size() && (line[i] == '{' || line[i] == ' ' || line[i] == '\t'))
      return CounterFormat::prometheus;
    if (std::optional<std::vector<std::string>> fields = csv_fields(line, kMaxColumns))
      for (const std::string& f : *fields)
        if (lower(f) == "link") return CounterFormat::csv;
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_string(CounterFormat f) {
  switch (f) {
    case CounterFormat::perfquery: return "perfquery";
    case CounterFormat::prometheus: return "prometheus";
    case CounterFormat::csv: return "csv";
  }
  return "?";
}

Result<CounterSample> counters_parse(std::string_view text, const std::string& where) {
  if (static_cast<int64_t>(text.size()) > limits::kMaxFileBytes)
    return Error{where + ": " + format_bytes(static_cast<double>(text.size())) + " is more than the " +
                 format_bytes(static_cast<double>(limits::kMaxFileBytes)) + " a counter file may be"};
  std::string_view first;
  const std::optional<CounterFormat> format = detect(text, &first);
  if (!format) {
    if (first.empty()) return Error{where + ": empty: no counters, only blank lines and comments"};
    return Error{where + ": not a counter file: " + shown(first) +
                 " is neither perfquery's '# Port counters: Lid N port N' header, Prometheus text "
                 "('name{labels} value') nor a CSV header with a 'link' column"};
  }
  switch (*format) {
    case CounterFormat::perfquery: return parse_perfquery(text, where);
    case CounterFormat::prometheus: return parse_prometheus(text, where);
    case CounterFormat::csv: return parse_csv(text, where);
  }
  return Error{where + ": unknown format"};
}

Result<CounterSample> counters_load(const std::string& path) {
  Result<std::string> text = text_read_file(path);
  if (!text) return Error{text.error()};
  return counters_parse(*text, path);
}

// ---- rates -----------------------------------------------------------------------------------

namespace {

struct Reading {
  const CounterSample* sample;
  const PortCounters* port;
  std::string place() const { return sample->source + ":" + std::to_string(port->line); }
};

constexpr double kMaxBytesPerSecond = limits::kMaxRateGBps * 1e9;

std::string max_text(const CounterValue& c) { return "2^" + std::to_string(c.bits) + "-1"; }

// One field over a port's readings in time order: the sum of consecutive deltas, or nullopt with
// the flags that say why.
std::optional<double> field_delta(const std::vector<Reading>& readings, const FieldInfo& f, double window_s,
                                  std::vector<std::string>& flags) {
  const std::string name(f.name);
  const auto& first = readings.front().port->*f.counter;
  const auto& last = readings.back().port->*f.counter;
  if (!first && !last) return std::nullopt;  // the source does not have it
  if (!first || !last) {
    flags.push_back(name + " missing from a sample");
    return std::nullopt;
  }
  double total = 0;
  const CounterValue* before = nullptr;
  bool wrapped = false;
  for (const Reading& r : readings) {
    const auto& now = r.port->*f.counter;
    if (!now) continue;
    if (now->saturated()) {
      flags.push_back(name + " saturated at " + max_text(*now) + " (" + r.place() + "): IBA counters stop there");
      return std::nullopt;
    }
    if (before) {
      uint64_t delta = now->value - before->value;  // modulo 2^64
      if (now->value < before->value) {
        // A 64-bit counter wraps; a plausible wrap leaves a small modular delta, and nothing a port
        // counts (bytes, packets, ticks) comes faster than the fastest link moves bytes. Anything
        // else, and any narrower counter (those saturate), was reset.
        const bool wraps = !before->saturates && !now->saturates && before->bits == 64 && now->bits == 64;
        const bool plausible =
            delta <= uint64_t{1} << 62 && static_cast<double>(delta) / window_s <= kMaxBytesPerSecond;
        if (!wraps || !plausible) {
          flags.push_back(name + " went backwards (counter reset?) at " + r.place());
          return std::nullopt;
        }
        wrapped = true;
      }
      total += static_cast<double>(delta);
    }
    before = &*now;
  }
  if (wrapped) flags.push_back(name + " wrapped at 2^64");
  return total;
}

PortRate rate_of(const std::string& key, const std::vector<Reading>& readings, double window_s) {
  PortRate r;
  r.key = key;
  r.window_s = window_s;
  r.where = readings.front().place() + " -> " + readings.back().place();
  for (const FieldInfo& f : kFields) {
    std::optional<double> delta = field_delta(readings, f, window_s, r.flags);
    if (!delta) continue;
    if (f.bytes) {
      const double Bps = *delta / window_s;
      if (Bps > kMaxBytesPerSecond) {
        r.flags.push_back(std::string(f.name) + " at " + format_rate_gbit(Bps / 1e9) +
                          ", beyond any link: are both readings of one port?");
        continue;
      }
      r.*f.rate = Bps;
    } else {
      r.*f.rate = *delta;
    }
  }
  return r;
}

Result<std::vector<PortRate>> csv_rates(const std::vector<CounterSample>& samples) {
  std::vector<PortRate> out;
  std::unordered_map<std::string, std::string> seen;  // link -> where
  for (const CounterSample& s : samples)
    for (const PortCounters& p : s.ports) {
      const Reading reading{&s, &p};
      const auto [first, added] = seen.try_emplace(p.key, reading.place());
      if (!added)
        return Error{reading.place() + ": link " + shown(p.key) + " again (first at " + first->second +
                     "): each CSV row is a window of its own, so a link is given once"};
      PortRate r;
      r.key = p.key;
      r.window_s = p.window_s.value_or(0);
      r.where = reading.place();
      if (!(r.window_s > 0)) return Error{reading.place() + ": window_s: expected seconds > 0"};
      for (const FieldInfo& f : kFields) {
        const auto& c = p.*f.counter;
        if (!c) continue;
        const double v = static_cast<double>(c->value);
        if (f.bytes && v / r.window_s > kMaxBytesPerSecond) {
          r.flags.push_back(std::string(f.name) + " at " + format_rate_gbit(v / r.window_s / 1e9) +
                            ", beyond any link");
          continue;
        }
        r.*f.rate = f.bytes ? v / r.window_s : v;
      }
      out.push_back(std::move(r));
    }
  return out;
}

}  // namespace

Result<std::vector<PortRate>> counter_rates(const std::vector<CounterSample>& samples,
                                            std::optional<double> interval_s) {
  if (samples.empty()) return Error{"no counter samples: rates need at least one CSV file or two samples"};
  for (const CounterSample& s : samples)
    if (s.format != samples.front().format)
      return Error{s.source + " is " + std::string(to_string(s.format)) + " but " + samples.front().source + " is " +
                   std::string(to_string(samples.front().format)) + ": rates come from samples of one format"};
  if (interval_s && (!std::isfinite(*interval_s) || *interval_s <= 0 || *interval_s > limits::kMaxSeconds))
    return Error{"interval: expected the seconds between samples, > 0, got " + format_exact(*interval_s)};
  if (samples.front().format == CounterFormat::csv) return csv_rates(samples);

  // Every reading has a time or none has: rates over a mix would pair a time with a guess.
  const Reading* timed = nullptr;
  const Reading* untimed = nullptr;
  std::vector<Reading> all;
  for (const CounterSample& s : samples)
    for (const PortCounters& p : s.ports) all.push_back({&s, &p});
  for (const Reading& r : all) (r.port->time_s ? timed : untimed) = &r;
  if (timed && untimed)
    return Error{
        timed->place() + " has a time and " + untimed->place() +
        " has none: give every sample a time ('# time:' lines, Prometheus timestamps) or none and an interval"};

  std::vector<std::string> order;  // keys by first appearance
  std::unordered_map<std::string, std::vector<Reading>> by_key;
  for (const Reading& r : all) {
    auto [it, added] = by_key.try_emplace(r.port->key);
    if (added) order.push_back(r.port->key);
    it->second.push_back(r);
  }

  std::vector<PortRate> out;
  if (timed) {
    for (const std::string& key : order) {
      std::vector<Reading>& readings = by_key[key];
      std::stable_sort(readings.begin(), readings.end(),
                       [](const Reading& a, const Reading& b) { return *a.port->time_s < *b.port->time_s; });
      for (size_t i = 1; i < readings.size(); ++i)
        if (*readings[i].port->time_s == *readings[i - 1].port->time_s)
          return Error{readings[i].place() + ": " + key + " at time " + format_exact(*readings[i].port->time_s) +
                       " as at " + readings[i - 1].place() + ": a window of zero seconds"};
    }
  } else {
    if (!interval_s)
      return Error{samples.front().source + ": the samples have no times ('# time:' lines or Prometheus timestamps): "
                   "give the interval between them"};
    if (samples.size() == 1)
      return Error{samples.front().source + ": one sample without times: rates need a second one, taken later"};
    if (samples.size() % 2)
      return Error{std::to_string(samples.size()) + " samples without times: the first half is read as one moment and "
                   "the second half as the next, so give as many files after as before (or '# time:' lines)"};
    const size_t half = samples.size() / 2;
    for (const std::string& key : order) {
      const std::vector<Reading>& readings = by_key[key];
      for (size_t i = 1; i < readings.size(); ++i) {
        const bool same_half = (readings[i].sample - samples.data() < static_cast<ptrdiff_t>(half)) ==
                               (readings[i - 1].sample - samples.data() < static_cast<ptrdiff_t>(half));
        if (same_half)
          return Error{readings[i].place() + ": " + key + " again in the same half as " + readings[i - 1].place() +
                       ": without times, the first half of the files is one moment and the second half the next; "
                       "add '# time:' lines (date +%s) for more moments"};
      }
    }
  }
  bool any_pair = false;
  for (const std::string& key : order) {
    const std::vector<Reading>& readings = by_key[key];
    if (readings.size() < 2) {
      PortRate r;
      r.key = key;
      r.where = readings.front().place();
      r.flags.push_back("only in one sample");
      out.push_back(std::move(r));
      continue;
    }
    any_pair = true;
    const double window_s = timed ? *readings.back().port->time_s - *readings.front().port->time_s : *interval_s;
    if (!(window_s > 0))
      return Error{readings.back().place() + ": " + key + ": a window of " + format_exact(window_s) + " seconds"};
    out.push_back(rate_of(key, readings, window_s));
  }
  if (!any_pair)
    return Error{samples.front().source + (samples.size() > 1 ? " and the others" : "") +
                 ": no port was read twice: rates need counters from two moments (a second sample taken later)"};
  return out;
}

}  // namespace topoplan
